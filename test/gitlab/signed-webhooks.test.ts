// Issue 19 (SPEC Q1 with A1; decision 0036): GitLab's signed webhooks. Where a signing token is
// configured, a body is stored only when its webhook-signature verifies (HMAC-SHA256 over id,
// timestamp and body, as GitLab and the Standard Webhooks format define it), any configured token for
// rotation, the timestamp within five minutes; a forged, stale or altered body is 401 and nothing is
// stored. With a shared secret as well, both must hold.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DATABASE_KINDS } from '../support/databases.js';
import { startHarness, type Harness } from '../support/harness.js';

type Json = any; // GitLab example payloads, edited freely in tests

const SIGNING = [`whsec_${randomBytes(32).toString('base64')}`, `whsec_${randomBytes(32).toString('base64')}`];
const OTHER = `whsec_${randomBytes(32).toString('base64')}`;
const PROJECT = 'gitlab-org/gitlab-test';
const WORKS = [
  { name: 'lab', account: 'gitlab-org', provider: 'gitlab', repositories: [{ name: PROJECT, role: 'data' }] },
];

function failedJob(buildId: number): Json {
  const job = JSON.parse(readFileSync(new URL('../fixtures/gitlab/job-hook.json', import.meta.url), 'utf8'));
  return {
    ...job,
    build_id: buildId,
    ref: 'refs/merge-requests/1/head',
    build_status: 'failed',
    build_finished_at: '2026-12-01 10:00:00 UTC',
  };
}

interface Signed {
  body?: string;
  token?: string | null;
  signWith?: string | null;
  at?: Date;
  /** The body actually sent, when it differs from the one signed. */
  send?: string;
  secret?: string;
}

async function post(h: Harness, o: Signed & { job: number }): Promise<{ status: number; body: any }> {
  const body = o.body ?? JSON.stringify(failedJob(o.job));
  const id = randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-gitlab-event': 'Job Hook',
    'idempotency-key': id,
    'webhook-id': id,
  };
  const at = o.at ?? new Date();
  headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
  const signWith = o.signWith === undefined ? SIGNING[0]! : o.signWith;
  if (signWith !== null) headers['webhook-signature'] = new Webhook(signWith).sign(id, at, body);
  if (o.secret !== undefined) headers['x-gitlab-token'] = o.secret;
  const res = await fetch(`${h.url}/api/gitlab/webhooks`, { method: 'POST', headers, body: o.send ?? body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function events(h: Harness): Promise<number> {
  const r = await h.app.db.kysely
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

for (const kind of DATABASE_KINDS) {
  describe(`GitLab signed webhooks (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, {
        env: { GITLAB_WEBHOOK_SIGNING_TOKEN: SIGNING.join(',') },
        configExtra: { works: WORKS },
      });
    });
    after(() => h.close());

    test('a body signed with either configured token is stored; no X-Gitlab-Token is needed without a secret', async () => {
      assert.equal((await post(h, { job: 7001 })).status, 202);
      assert.equal((await post(h, { job: 7002, signWith: SIGNING[1]! })).status, 202);
    });

    test('unsigned, signed with another token, altered after signing, or signed too long ago: 401, nothing stored', async () => {
      const before = await events(h);
      const signed = JSON.stringify(failedJob(7003));
      for (const o of [
        { job: 7003, signWith: null },
        { job: 7003, signWith: OTHER },
        { job: 7003, body: signed, send: signed.replace('"failed"', '"success"') },
        { job: 7003, at: new Date(Date.now() - 10 * 60_000) },
      ]) {
        const r = await post(h, o);
        assert.equal(r.status, 401, JSON.stringify(o));
        assert.equal(r.body.error, 'bad_signature');
      }
      assert.equal(await events(h), before);
    });
  });
}

describe('GitLab signed webhooks with a shared secret as well', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', {
      env: { GITLAB_WEBHOOK_SECRET: 'shared-secret', GITLAB_WEBHOOK_SIGNING_TOKEN: SIGNING[0]! },
      configExtra: { works: WORKS },
    });
  });
  after(() => h.close());

  test('both must hold: the right signature without the token is 401, the token without a signature is 401', async () => {
    assert.equal((await post(h, { job: 7101 })).body.error, 'bad_token');
    assert.equal((await post(h, { job: 7101, secret: 'shared-secret', signWith: null })).body.error, 'bad_signature');
    assert.equal((await post(h, { job: 7101, secret: 'shared-secret' })).status, 202);
    assert.equal(await events(h), 1);
  });
});

test('a signing token that is not GitLab’s format is a configuration error naming the variable', async () => {
  await assert.rejects(
    startHarness('sqlite', { env: { GITLAB_WEBHOOK_SIGNING_TOKEN: 'not a token!' }, configExtra: { works: WORKS } }),
    /GITLAB_WEBHOOK_SIGNING_TOKEN/,
  );
});
