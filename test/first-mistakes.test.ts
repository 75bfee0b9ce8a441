// Issue 32, item 6 (SPEC A1, A5, M2): the common first mistakes get an answer that says what to change —
// a form-encoded webhook (GitHub's default content type), a repository no Work lists (on a delivery
// and on a Task registration), and a wrong API token told apart from a missing one.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, API_TOKEN, SECRET, type Harness } from './support/harness.js';
import { checkRunPayload, delivery, post, signedHeaders } from './support/deliveries.js';

const sha = (n: number) => n.toString(16).padStart(40, 'd');

describe('answers to common first mistakes (issue 32)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite');
  });
  after(() => h.close());

  const formEncoded = (n: number) => {
    const payload = checkRunPayload({
      repo: { owner: 'acme', name: 'shop', id: 4242 },
      sha: sha(n),
      id: n,
      pr: { number: n, headSha: sha(n) },
    });
    // What GitHub sends with "Content type: application/x-www-form-urlencoded": the JSON in a `payload` field.
    return { event: 'check_run', id: `form-${n}`, body: `payload=${encodeURIComponent(JSON.stringify(payload))}` };
  };

  test('A1: a signed form-encoded delivery is refused with 400 saying to set the content type to application/json', async () => {
    const d = formEncoded(1);
    const headers = { ...(await signedHeaders(d, SECRET)), 'content-type': 'application/x-www-form-urlencoded' };
    const res = await fetch(`${h.url}/api/github/webhooks`, { method: 'POST', headers, body: d.body });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { reason: string; detail: string };
    assert.equal(body.reason, 'malformed_json');
    assert.match(body.detail, /Content type to application\/json/);
    // Nothing was stored for it.
    const stored = await h.api('GET', `/api/deliveries?delivery=${d.id}`);
    assert.deepEqual(stored.body.decisions, []);
  });

  test('A1: the signature is still checked first: an unsigned form-encoded delivery is 401', async () => {
    const d = formEncoded(2);
    const res = await fetch(`${h.url}/api/github/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-github-event': 'check_run',
        'x-github-delivery': d.id,
      },
      body: d.body,
    });
    assert.equal(res.status, 401);
    const body = (await res.json()) as { error: string; message: string };
    assert.equal(body.error, 'bad_signature');
    assert.match(body.message, /set the webhook's Secret to WEBHOOK_SECRET/);
  });

  test('A5: a delivery for a repository no Work lists is acknowledged and recorded with the config key to add', async () => {
    const d = delivery(
      'check_run',
      checkRunPayload({
        repo: { owner: 'other', name: 'repo', id: 999 },
        sha: sha(3),
        id: 3,
        pr: { number: 3, headSha: sha(3) },
      }),
    );
    const answer = await post(h.url, d, SECRET);
    assert.equal(answer.status, 202);
    await h.app.settle();
    const decisions = (await h.api('GET', `/api/deliveries?delivery=${d.id}`)).body.decisions as any[];
    const refused = decisions.find((x) => x.outcome === 'refused');
    assert.ok(refused, JSON.stringify(decisions));
    assert.equal(refused.reason, 'no_work');
    assert.match(refused.detail, /other\/repo is in no configured Work: add it under works\[\]\.repositories/);
  });

  test('A5: registering a Task for an unknown repository names works[].repositories, not a bare no_work', async () => {
    const res = await h.api('POST', '/api/tasks', { repository: 'nobody/else', pullRequest: 1, branch: 'x' });
    assert.equal(res.status, 422);
    assert.equal(res.body.error, 'no_work');
    assert.match(res.body.message, /nobody\/else is in no configured Work: add it under works\[\]\.repositories/);
    const site = await h.api('POST', '/api/tasks', { repository: 'acme/shop-site', pullRequest: 1, branch: 'x' });
    assert.equal(site.body.error, 'not_data_repo');
    assert.match(site.body.message, /role: data/);
  });

  test('M2: a wrong API token answers 401 "wrong token"; none at all answers "required"', async () => {
    const wrong = await fetch(`${h.url}/api/tasks`, { headers: { authorization: `Bearer ${API_TOKEN}-not` } });
    assert.equal(wrong.status, 401);
    assert.match(((await wrong.json()) as { message: string }).message, /^wrong token/);
    const none = await fetch(`${h.url}/api/tasks`);
    assert.equal(none.status, 401);
    const said = ((await none.json()) as { message: string }).message;
    assert.match(said, /is required/);
    assert.doesNotMatch(said, /wrong token/);
  });
});
