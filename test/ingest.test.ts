// SPEC A1–A4: the webhook receiver. Verified over the exact bytes, rotation, and bad input that
// gets a clear error and stores nothing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { sign, verify } from '@octokit/webhooks-methods';
import { DATABASE_KINDS } from './support/databases.js';
import { startHarness, SECRET, REPO, type Harness } from './support/harness.js';
import { checkRunPayload, delivery, examplesOf, post, signedHeaders } from './support/deliveries.js';

const VECTOR_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
const HANDLED = [
  'check_run',
  'check_suite',
  'workflow_run',
  'status',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'issue_comment',
  'ping',
  'installation',
  'installation_repositories',
];

async function countRows(h: Harness, table: 'events' | 'decisions'): Promise<number> {
  const r = await h.app.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

function rawPost(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return fetch(`${url}/api/github/webhooks`, { method: 'POST', headers, body }).then(async (r) => ({
    status: r.status,
    body: await r.text(),
  }));
}

test("A1: GitHub's published test vector verifies with the library fixloop uses", async () => {
  assert.equal(await verify("It's a Secret to Everybody", 'Hello, World!', VECTOR_SIGNATURE), true);
  assert.equal(await sign("It's a Secret to Everybody", 'Hello, World!'), VECTOR_SIGNATURE);
});

for (const kind of DATABASE_KINDS) {
  describe(`webhook receiver (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind, {
        env: { WEBHOOK_SECRET: `${SECRET}, new-rotated-secret`, WEBHOOK_MAX_BYTES: String(64 * 1024) },
      });
    });
    after(() => h.close());

    test('A1: the test vector body is accepted by signature (then refused as not JSON, 400), a wrong signature is 401', async () => {
      const headers = { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': 'vector-1' };
      const ok = await rawPost(h.url, { ...headers, 'x-hub-signature-256': VECTOR_SIGNATURE }, 'Hello, World!');
      assert.equal(ok.status, 400);
      assert.match(ok.body, /malformed_json/);
      const bad = await rawPost(
        h.url,
        { ...headers, 'x-hub-signature-256': VECTOR_SIGNATURE.replace(/7$/, '8') },
        'Hello, World!',
      );
      assert.equal(bad.status, 401);
    });

    test('A1: a re-serialized body fails verification and stores nothing', async () => {
      const d = delivery('check_run', checkRunPayload({ repo: REPO, sha: 'f'.repeat(40), id: 1, pr: null }));
      const headers = await signedHeaders(d, SECRET);
      const before = await countRows(h, 'events');
      const reserialized = JSON.stringify(JSON.parse(d.body), null, 2);
      assert.equal((await rawPost(h.url, headers, reserialized)).status, 401);
      assert.equal(await countRows(h, 'events'), before);
    });

    test('A1: rotation — either configured secret verifies', async () => {
      const d1 = delivery('check_run', checkRunPayload({ repo: REPO, sha: '1'.repeat(40), id: 11, pr: null }));
      const d2 = delivery('check_run', checkRunPayload({ repo: REPO, sha: '2'.repeat(40), id: 12, pr: null }));
      assert.equal((await post(h.url, d1, SECRET)).status, 202);
      assert.equal((await post(h.url, d2, 'new-rotated-secret')).status, 202);
      assert.equal(
        (
          await post(
            h.url,
            delivery('check_run', checkRunPayload({ repo: REPO, sha: '3'.repeat(40), id: 13, pr: null })),
            'an-old-secret',
          )
        ).status,
        401,
      );
    });

    test('A1: a bad or missing signature is 401 and nothing is stored, not even a decision row', async () => {
      await h.app.settle(); // earlier tests' evaluation rows are written after their acks
      const events = await countRows(h, 'events');
      const decisions = await countRows(h, 'decisions');
      const d = delivery('check_run', checkRunPayload({ repo: REPO, sha: '4'.repeat(40), id: 14, pr: null }));
      const headers = await signedHeaders(d, 'wrong');
      assert.equal((await rawPost(h.url, headers, d.body)).status, 401);
      const { ['x-hub-signature-256']: _gone, ...unsigned } = headers;
      assert.equal((await rawPost(h.url, unsigned, d.body)).status, 401);
      assert.equal(await countRows(h, 'events'), events);
      assert.equal(await countRows(h, 'decisions'), decisions);
    });

    // A server that kept buffering would leave the request hanging: the timeout turns that into a failure.
    test('A1: a body over the cap is refused with 413 before it is buffered', { timeout: 15_000 }, async () => {
      // Declares 10 MiB but sends only a few bytes: the answer must come without waiting for the rest.
      const port = Number(new URL(h.url).port);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/github/webhooks',
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'content-length': String(10 * 1024 * 1024),
              'x-github-event': 'check_run',
              'x-hub-signature-256': 'sha256=00',
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write('{"a":');
      });
      assert.equal(status, 413);
      // Chunked (no content-length): cut off while streaming. The client sends just past the 64 KiB cap
      // and then waits, neither ending the body nor writing more, so the answer must come from the cap
      // alone; a connection closed without a 413 fails the test.
      const chunked = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/github/webhooks',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-github-event': 'check_run' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        // After its answer the server drops the connection; an error before any answer is a failure.
        req.on('error', (e) => reject(new Error(`no answer before the connection failed: ${e.message}`)));
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        for (let sent = 0; sent <= 64 * 1024; sent += chunk.length) req.write(chunk);
      });
      assert.equal(chunked, 413);
    });

    test('A1: malformed JSON with a valid signature is 400 and recorded as rejected', async () => {
      const d = { event: 'check_run', id: 'malformed-1', body: '{"action": "completed", ' };
      const res = await post(h.url, d, SECRET);
      assert.equal(res.status, 400);
      const log = (await h.api('GET', '/api/deliveries?delivery=malformed-1')).body.decisions;
      assert.deepEqual(
        log.map((x: any) => [x.outcome, x.reason]),
        [['rejected', 'malformed_json']],
      );
    });

    test('A1: a payload whose shape does not match its X-GitHub-Event is 400 (shape_mismatch)', async () => {
      const d = delivery('status', checkRunPayload({ repo: REPO, sha: '5'.repeat(40), id: 15, pr: null }), 'shape-1');
      const res = await post(h.url, d, SECRET);
      assert.equal(res.status, 400);
      assert.equal(res.body.reason, 'shape_mismatch');
    });

    test('A1: an unknown event is acknowledged with 2xx and nothing is stored', async () => {
      await h.app.settle();
      const events = await countRows(h, 'events');
      const decisions = await countRows(h, 'decisions');
      const res = await post(h.url, delivery('star', examplesOf('star')[0], 'star-1'), SECRET);
      assert.ok(res.status >= 200 && res.status < 300);
      assert.equal(await countRows(h, 'events'), events);
      assert.equal(await countRows(h, 'decisions'), decisions);
    });

    test('A2–A4: every example payload of the handled events goes through the receiver; identities and the completed-only rule hold', async () => {
      let n = 0;
      const seen = new Set<string>();
      for (const event of HANDLED) {
        for (const example of examplesOf(event)) {
          const k = n++;
          const d = delivery(event, example, `example-${event}-${k}`);
          const res = await post(h.url, d, SECRET);
          assert.ok([200, 202].includes(res.status), `${event} #${k}: ${res.status} ${JSON.stringify(res.body)}`);
          const ci = ['check_run', 'check_suite', 'workflow_run', 'status'].includes(event);
          if (!ci) continue;
          const status =
            event === 'status'
              ? example.state === 'pending'
                ? 'pending'
                : 'completed'
              : (example.check_run ?? example.check_suite ?? example.workflow_run).status;
          if (status !== 'completed') assert.equal(res.body.outcome, 'dropped', `${event} ${status} must be dropped`);
          else {
            // A3: the identity is the result's own (repository, sha, kind, id or context, attempt,
            // status, conclusion), read here from the example itself; two examples that are the same
            // result share it, and only the first stores.
            const identity = expectedIdentity(event, example);
            assert.equal(res.body.identity, identity, `${event} #${k}`);
            assert.equal(res.body.outcome, seen.has(identity) ? 'duplicate' : 'stored', `${event} #${k}: ${identity}`);
            seen.add(identity);
          }
          // A byte-identical redelivery stores nothing new.
          const again = await post(h.url, d, SECRET);
          if (ci && status === 'completed') assert.equal(again.body.outcome, 'duplicate');
        }
      }
      await h.app.settle();
      assert.ok(n > 80);
    });
  });
}

/** A CI result's identity as SPEC A3 composes it, from an example payload's own fields. */
function expectedIdentity(event: string, ex: any): string {
  const head = (sha: string) => `check:${String(ex.repository.full_name).toLowerCase()}@${sha}`;
  const outcome = (status: string, conclusion: string | null) => `${status}${conclusion ? `:${conclusion}` : ''}`;
  switch (event) {
    case 'status':
      return `${head(ex.sha)}:status:${ex.context}:${ex.state}`;
    case 'workflow_run': {
      const w = ex.workflow_run;
      return `${head(w.head_sha)}:workflow:${w.id}#${w.run_attempt}:${outcome(w.status, w.conclusion)}`;
    }
    default: {
      const c = event === 'check_run' ? ex.check_run : ex.check_suite;
      return `${head(c.head_sha)}:${event === 'check_run' ? 'run' : 'suite'}:${c.id}:${outcome(c.status, c.conclusion)}`;
    }
  }
}
