// The API client behind `fixloop mcp` (M3): the run's token as bearer on every `/api/run/*` call,
// and the API's refusals mapped back to the same AgentOpsError code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentOpsError } from '../app/agent-ops-port.js';
import { createApiOps } from './api-ops.js';

interface Seen {
  method: string;
  url: string;
  authorization: string | null;
  body: unknown;
}

function fakeFetch(answer: (seen: Seen) => Response): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const f = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    const s: Seen = {
      method: init?.method ?? 'GET',
      url: String(input),
      authorization: headers.get('authorization'),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    seen.push(s);
    return answer(s);
  };
  return { fetch: f as typeof fetch, seen };
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

test('every call goes to /api/run/* under the API URL, path prefix kept, with the run token as bearer', async () => {
  const { fetch, seen } = fakeFetch((s) =>
    json(
      200,
      s.url.includes('outcome')
        ? { attemptId: 5, state: 'acknowledged', extra: 1 }
        : s.url.includes('spend')
          ? { totalSpend: 2 }
          : {},
    ),
  );
  const ops = createApiOps({ apiUrl: 'https://fixloop.example/base', token: 'run-token', fetch });
  await ops.checks({ failingOnly: true, logLines: 50 });
  assert.deepEqual(await ops.reportOutcome({ outcome: 'blocked', reason: 'needs a person' }), {
    attemptId: 5,
    state: 'acknowledged',
  });
  assert.deepEqual(await ops.reportSpend({ model: 1.5, sandbox: 0.5 }), { totalSpend: 2 });
  await ops.loopState();
  assert.deepEqual(
    seen.map((s) => [s.method, s.url, s.body]),
    [
      ['GET', 'https://fixloop.example/base/api/run/checks?failing=true&logLines=50', undefined],
      ['POST', 'https://fixloop.example/base/api/run/outcome', { outcome: 'blocked', reason: 'needs a person' }],
      ['POST', 'https://fixloop.example/base/api/run/spend', { model: 1.5, sandbox: 0.5 }],
      ['GET', 'https://fixloop.example/base/api/run/state', undefined],
    ],
  );
  assert.ok(seen.every((s) => s.authorization === 'Bearer run-token'));
});

test("the API's { error, message } refusals become the same AgentOpsError", async () => {
  for (const [status, code] of [
    [401, 'unauthorized'],
    [403, 'run_ended'],
    [409, 'outcome_already_reported'],
    [409, 'no_attempt'],
    [400, 'invalid'],
    [503, 'unavailable'],
  ] as const) {
    const { fetch } = fakeFetch(() => json(status, { error: code, message: `because ${code}` }));
    const ops = createApiOps({ apiUrl: 'http://127.0.0.1:3000', token: 't', fetch });
    await assert.rejects(
      ops.reportOutcome({ outcome: 'action_taken' }),
      (err: unknown) => err instanceof AgentOpsError && err.code === code && err.message === `because ${code}`,
    );
  }
});

test('an answer without our error body is mapped by its status', async () => {
  const cases = [
    [401, 'unauthorized'],
    [400, 'invalid'],
    [502, 'unavailable'],
    [404, 'unavailable'],
  ] as const;
  for (const [status, code] of cases) {
    const { fetch } = fakeFetch(() => new Response('<html>proxy</html>', { status }));
    const ops = createApiOps({ apiUrl: 'http://127.0.0.1:3000/', token: 't', fetch });
    await assert.rejects(
      ops.loopState(),
      (err: unknown) =>
        err instanceof AgentOpsError &&
        err.code === code &&
        err.message === `fixloop answered ${status} to GET /api/run/state`,
    );
  }
});

test('a network failure or an unexpected answer is unavailable', async () => {
  const down = createApiOps({
    apiUrl: 'http://127.0.0.1:3000',
    token: 't',
    fetch: (async () => Promise.reject(new TypeError('fetch failed'))) as typeof fetch,
  });
  await assert.rejects(down.checks({ failingOnly: false, logLines: 0 }), {
    name: 'AgentOpsError',
    code: 'unavailable',
    message: 'cannot reach fixloop at http://127.0.0.1:3000 (GET /api/run/checks): fetch failed',
  });
  const odd = createApiOps({
    apiUrl: 'http://127.0.0.1:3000',
    token: 't',
    fetch: fakeFetch(() => json(200, { total: 'lots' })).fetch,
  });
  await assert.rejects(odd.reportSpend({ model: 1 }), { code: 'unavailable' });
});

test('an API URL that is not http(s) is refused at once', () => {
  assert.throws(() => createApiOps({ apiUrl: 'file:///etc/passwd', token: 't' }), TypeError);
});
