// Issue 36, decision 0075, on both databases: a red base's notice reaches where notices go. Three pull
// requests held by one red `main` tell the configured Slack and webhook sinks once (`base_red.opened`,
// signed, one key per event and sink, held pull requests linked); `main` healing tells them once more
// (`base_red.healed`); a sink that fails is tried again with the same key, as a Task's notice is.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { DATABASE_KINDS } from '../support/databases.js';
import { startGitHubHarness, nextTick, sha, type GitHubHarness } from '../support/github-harness.js';
import { closeServer, listenLoopback } from '../support/loopback.js';

const REPO = 'acme/shop';
const HOOK_SECRET = 'base-red-hook-secret';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** A sink on loopback answering each request with `status(i)`, recording all of them. */
async function sinkServer(status: (i: number, path: string) => number) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const i = received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(raw) }) - 1;
      Object.assign(received[i]!, { raw });
      res.writeHead(status(i, req.url ?? ''), { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  const url = await listenLoopback(server);
  return { url, received, close: () => closeServer(server) };
}

function mainAt(h: GitHubHarness, commit: string, conclusion: 'failure' | 'success') {
  h.fake.setBranch(REPO, 'main', commit);
  h.fake.addCheckRun(REPO, commit, { name: 'test', status: 'completed', conclusion });
}

async function heldPull(h: GitHubHarness, pr: number, c: string): Promise<void> {
  await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: pr, branch: `agent/${c}` });
  h.fake.addPull(REPO, pr, { headSha: sha(c), headRef: `agent/${c}` });
  h.fake.addCheckRun(REPO, sha(c), { name: 'test', status: 'completed', conclusion: 'failure' });
}

const signed = (r: Received) =>
  r.headers['x-fixloop-signature-256'] ===
  `sha256=${createHmac('sha256', HOOK_SECRET)
    .update((r as unknown as { raw: string }).raw, 'utf8')
    .digest('hex')}`;

for (const kind of DATABASE_KINDS) {
  describe(`a red base told to the notice sinks (${kind})`, () => {
    test('opened once and healed once, to Slack and to a signed webhook; a failed try is tried again with its key', async () => {
      // The webhook's first try fails: it is tried again, with the same key.
      let hookTries = 0;
      const sink = await sinkServer((_i, path) => (path === '/hook' && hookTries++ === 0 ? 503 : 200));
      const h = await startGitHubHarness(kind, {
        configExtra: {
          notices: {
            sinks: [
              { kind: 'slack', name: 'team', url: `${sink.url}/slack` },
              { kind: 'webhook', name: 'ops', url: `${sink.url}/hook`, secret: HOOK_SECRET },
            ],
            retry: { maxAttempts: 4, initialSeconds: 0.01, maxSeconds: 0.02 },
            timeoutSeconds: 2,
          },
        },
        adapters: { startOutbox: false },
      });
      try {
        mainAt(h, sha('m'), 'failure');
        for (const [pr, c] of [
          [61, 'a'],
          [62, 'b'],
          [63, 'c'],
        ] as const)
          await heldPull(h, pr, c);
        h.clock.advance(120_000);
        await h.tick();
        assert.equal(h.runner.starts.length, 0);
        const [red] = await h.app.ledger.openBaseReds(10);
        assert.ok(red, 'the base notice');

        await h.app.outbox.tick();
        const slack = () => sink.received.filter((r) => r.path === '/slack');
        const hook = () => sink.received.filter((r) => r.path === '/hook');
        assert.equal(slack().length, 1, 'Slack told once');
        assert.match(slack()[0]!.body.text, /main of acme\/shop is failing/);
        assert.match(slack()[0]!.body.text, /pull requests that fail the same check/);
        assert.equal(slack()[0]!.headers['idempotency-key'], `base-red-${red.id}-opened-team`);
        assert.equal(hook().length, 1, 'the webhook tried once, and failed');
        // The retry is due within 20 ms of real time; the ledger's clock is the harness's.
        h.clock.advance(1_000);
        await h.app.outbox.tick();
        assert.equal(hook().length, 2, 'tried again');
        const [first, second] = hook();
        assert.equal(first!.headers['idempotency-key'], second!.headers['idempotency-key']);
        assert.equal(second!.headers['idempotency-key'], `base-red-${red.id}-opened-ops`);
        assert.equal(second!.headers['x-fixloop-event'], 'base_red.opened');
        assert.ok(signed(second!), 'signed with the sink secret');
        assert.equal(second!.body.event, 'base_red.opened');
        assert.equal(second!.body.baseRed.repository, REPO);
        assert.equal(second!.body.baseRed.baseRef, 'main');
        assert.deepEqual(second!.body.baseRed.checks, ['test']);
        assert.equal(second!.body.baseRed.baseSha, sha('m'));
        assert.equal(second!.body.baseRed.message, red.message);
        assert.ok(second!.body.baseRed.pullRequests.length >= 1);
        assert.equal(
          second!.body.baseRed.pullRequests[0].url,
          `https://github.com/acme/shop/pull/${red.pullRequests[0]}`,
        );
        await h.app.outbox.tick();
        assert.equal(sink.received.length, 3, 'nothing more once delivered');

        // main heals: both sinks are told once more.
        mainAt(h, sha('n'), 'success');
        await nextTick(h);
        assert.deepEqual(await h.app.ledger.openBaseReds(10), []);
        await h.app.outbox.tick();
        assert.equal(slack().length, 2);
        assert.match(slack()[1]!.body.text, /main of acme\/shop passes again/);
        assert.match(slack()[1]!.body.text, /held pull requests are judged again/);
        assert.equal(hook().length, 3);
        assert.equal(hook()[2]!.body.event, 'base_red.healed');
        assert.equal(hook()[2]!.headers['idempotency-key'], `base-red-${red.id}-healed-ops`);
        assert.ok(hook()[2]!.body.baseRed.closedAt);
        await nextTick(h);
        await h.app.outbox.tick();
        assert.equal(sink.received.length, 5, 'each event told once to each sink');
      } finally {
        await h.close();
        await sink.close();
      }
    });
  });
}
