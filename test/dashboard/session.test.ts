// SPEC M4, issue 31: the dashboard's sessions are ledger rows (migration 0022) on both databases — a
// cookie is a random secret whose keyed hash is the row, sign-out revokes it for every copy of the
// cookie and every replica, sign-out-everywhere revokes them all, expired rows are swept — and the
// CSRF token belongs to one session.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, DATABASE_KINDS } from '../support/databases.js';
import { openDatabase } from '../../src/ledger/db.js';
import { migrateToLatest } from '../../src/ledger/migrations.js';
import { createDashboardSessions } from '../../src/ledger/sessions.js';
import type { DashboardSessions } from '../../src/app/dashboard-sessions-port.js';
import {
  createSessionBook,
  SEEN_EVERY_MS,
  SESSION_TTL_MS,
  sessionHash,
  sessionKey,
} from '../../src/dashboard/session.js';
import { csrfToken, csrfValid, sameOrigin } from '../../src/dashboard/csrf.js';

const key = sessionKey('the-api-token');
const T0 = Date.parse('2026-12-04T09:00:00Z');

/** Two "replicas" on one database: each its own connection and store, as two processes have. */
async function withStores(
  kind: 'sqlite' | 'postgres',
  f: (a: DashboardSessions, b: DashboardSessions, rows: () => Promise<any[]>) => Promise<void>,
): Promise<void> {
  const tdb = await createTestDatabase(kind);
  const one = openDatabase(tdb.url);
  await migrateToLatest(one.kysely, one.dialect);
  const two = openDatabase(tdb.url);
  try {
    await f(createDashboardSessions(one.kysely), createDashboardSessions(two.kysely), () =>
      one.kysely.selectFrom('dashboard_sessions').selectAll().orderBy('created_at').execute(),
    );
  } finally {
    await one.close();
    await two.close();
    await tdb.drop();
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`dashboard sessions on ${kind} (M4, issue 31)`, () => {
    test('the cookie is only a random secret; the row holds its keyed hash, never the secret', async () => {
      await withStores(kind, async (store, _b, rows) => {
        const book = createSessionBook(store, key, () => T0);
        const { session, cookie } = await book.signIn();
        assert.match(cookie, /^[\w-]{43}$/);
        const [row] = await rows();
        assert.equal(row.secret_hash, sessionHash(key, cookie));
        assert.notEqual(row.secret_hash, cookie);
        assert.ok(!JSON.stringify(row).includes(cookie), 'the secret is nowhere in the row');
        assert.deepEqual(
          [row.created_at, row.last_seen_at, row.expires_at],
          [new Date(T0).toISOString(), new Date(T0).toISOString(), new Date(T0 + SESSION_TTL_MS).toISOString()],
        );
        assert.deepEqual(await book.read(cookie), session);
      });
    });

    test('a session reads back until it expires, and not after', async () => {
      await withStores(kind, async (store) => {
        let now = T0;
        const book = createSessionBook(store, key, () => now);
        const { session, cookie } = await book.signIn();
        now = T0 + SESSION_TTL_MS - 1;
        assert.deepEqual(await book.read(cookie), session);
        now = T0 + SESSION_TTL_MS;
        assert.equal(await book.read(cookie), null);
      });
    });

    test('a made-up, malformed or edited cookie is no session; neither is one under another API token', async () => {
      await withStores(kind, async (store) => {
        const book = createSessionBook(store, key, () => T0);
        const { cookie } = await book.signIn();
        const edited = cookie.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
        for (const bad of [edited, 'garbage', '', undefined, `${cookie}x`, 'A'.repeat(43)])
          assert.equal(await book.read(bad), null, String(bad));
        // A new API token is a new key: every session it did not sign ends with the old token.
        assert.equal(await createSessionBook(store, sessionKey('another-token'), () => T0).read(cookie), null);
      });
    });

    test('sign-out revokes the row: a copied cookie stops working, on another replica too', async () => {
      await withStores(kind, async (a, b) => {
        const onA = createSessionBook(a, key, () => T0);
        const onB = createSessionBook(b, key, () => T0);
        const { cookie } = await onA.signIn();
        const other = await onA.signIn();
        const copy = `${cookie}`;
        assert.ok(await onB.read(copy), 'the other replica reads the same session');
        await onB.signOut(cookie);
        assert.equal(await onA.read(copy), null);
        assert.equal(await onB.read(copy), null);
        assert.ok(await onA.read(other.cookie), "another person's session is untouched");
      });
    });

    test('sign out everywhere ends every session, on every replica', async () => {
      await withStores(kind, async (a, b, rows) => {
        const onA = createSessionBook(a, key, () => T0);
        const onB = createSessionBook(b, key, () => T0);
        const first = await onA.signIn();
        const second = await onB.signIn();
        assert.equal(await onB.signOutEverywhere(), 2);
        assert.equal(await onA.read(first.cookie), null);
        assert.equal(await onA.read(second.cookie), null);
        assert.deepEqual(await rows(), []);
      });
    });

    test('expired rows are swept at the next sign-in; live ones stay', async () => {
      await withStores(kind, async (store, _b, rows) => {
        let now = T0;
        const book = createSessionBook(store, key, () => now);
        await book.signIn();
        now = T0 + SESSION_TTL_MS / 2;
        const live = await book.signIn();
        now = T0 + SESSION_TTL_MS + 1;
        await book.signIn();
        const left = await rows();
        assert.equal(left.length, 2, 'the first, expired, is gone');
        assert.ok(left.some((r) => r.secret_hash === live.session.id));
      });
    });

    test('last seen is written when the session is used, at most once a minute', async () => {
      await withStores(kind, async (store, _b, rows) => {
        let now = T0;
        const book = createSessionBook(store, key, () => now);
        const { cookie } = await book.signIn();
        now = T0 + SEEN_EVERY_MS - 1;
        await book.read(cookie);
        assert.equal((await rows())[0].last_seen_at, new Date(T0).toISOString());
        now = T0 + SEEN_EVERY_MS + 5;
        await book.read(cookie);
        assert.equal((await rows())[0].last_seen_at, new Date(now).toISOString());
      });
    });
  });
}

test('M4: the CSRF token belongs to one session and one API token', () => {
  const a = { id: sessionHash(key, 'a'.repeat(43)), expiresAt: T0 };
  const b = { id: sessionHash(key, 'b'.repeat(43)), expiresAt: T0 };
  assert.equal(csrfValid(key, a, csrfToken(key, a)), true);
  assert.equal(csrfValid(key, a, csrfToken(key, b)), false);
  assert.equal(csrfValid(key, a, ''), false);
  assert.equal(csrfValid(key, a, undefined), false);
  assert.equal(csrfValid(key, a, csrfToken(sessionKey('another-token'), a)), false);
});

test('M4: the key is derived from the token, never the token itself', () => {
  assert.notDeepEqual(key, Buffer.from('the-api-token'));
  assert.equal(key.length, 32);
});

test('M4: an action from another origin is refused; one without Origin is left to the token', () => {
  const own = ['http://127.0.0.1:3000', 'https://fixloop.example.com'];
  assert.equal(sameOrigin('http://127.0.0.1:3000', own), true);
  assert.equal(sameOrigin('https://fixloop.example.com', own), true);
  assert.equal(sameOrigin('https://evil.example', own), false);
  assert.equal(sameOrigin('null', own), false);
  assert.equal(sameOrigin(undefined, own), true);
});
