// Issue 31 (decision 0047): what the host refuses or does not answer costs only its own Task, and
// is told once. A commit status the token may not write (403: no `statuses: write`) is held back per
// repository and warned about once, on a lane of its own, so another Task's hand-off (its label and
// state comment) lands at once; a base branch whose checks never answer holds each red for a bounded
// moment only, and reds of other pull requests do not queue behind it (SPEC P3, K5, T1, I5).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { DATABASE_KINDS } from '../support/databases.js';
import { BOT_LOGIN, FakeClock, openOnFake, type GitHubHarness } from '../support/github-harness.js';
import { startFakeGitHub } from '../support/fake-github/server.js';
import { API_TOKEN, SECRET } from '../support/harness.js';
import { checkRunPayload, delivery, post } from '../support/deliveries.js';
import { createGitHub } from '../../src/github/client.js';
import { createLogger } from '../../src/logging.js';
import type { ProviderPort } from '../../src/app/provider-port.js';

const REPO = 'acme/shop';
const REPO_SPEC = { owner: 'acme', name: 'shop', id: 4242 };
/** One write slot: GitHub asks for at least a second between writes, and the throttling plugin keeps it. */
const PACE_MS = 1000;
const head = (pr: number, round: number) => `${round}${pr}`.padEnd(40, 'e');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const labels = (h: GitHubHarness, pr: number) => h.fake.state.pulls[`${REPO}#${pr}`]!.labels ?? [];

/** fixloop on the fake GitHub with a log it can read back; `wrap` changes the port (pacing, hanging reads). */
async function start(kind: 'sqlite' | 'postgres', wrap: (real: ProviderPort) => ProviderPort) {
  const fake = await startFakeGitHub();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  const token = fake.addUserToken(BOT_LOGIN);
  const real = createGitHub({
    apiUrl: fake.url,
    auth: { kind: 'token', token },
    throttle: { spaceWrites: false },
    retry: { backoffUnitMs: 1 },
  });
  const lines: string[] = [];
  const logger = createLogger(
    'warn',
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  const h = await openOnFake(
    kind,
    { fake, clock, token },
    {
      env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' },
      adapters: { github: wrap(real), logger, commitStatusEveryMs: 20 },
    },
  );
  return {
    h,
    lines,
    async close() {
      await h.close();
      await fake.close();
    },
  };
}

/** A red check on a new head of each pull request, for the next poll tick to see. */
function redHeads(h: GitHubHarness, prs: number[], round: number) {
  h.clock.advance(120_000);
  for (const pr of prs) {
    h.fake.setHead(REPO, pr, head(pr, round));
    h.fake.addCheckRun(REPO, head(pr, round), {
      name: 'test',
      status: 'completed',
      conclusion: 'failure',
      outputSummary: `failure ${round} of ${pr}`,
    });
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`the host's refusals and silences stay with their own Task (${kind})`, () => {
    test("a commit status refused with 403 is held back and told once; another Task's hand-off lands at once", async () => {
      const statusWrites: number[] = [];
      const t = await start(kind, (real) => ({
        ...real,
        // Each write takes its paced slot, as GitHub's one-a-second rule makes it.
        createCommitStatus: async (...a) => {
          statusWrites.push(Date.now());
          await sleep(PACE_MS);
          return real.createCommitStatus(...a);
        },
      }));
      const { h } = t;
      try {
        t.h.fake.failNext(/\/statuses\/[0-9a-f]{40}$/, new Array(1000).fill(403));
        const others = [11, 12, 13, 14];
        const all = [...others, 20];
        for (const pr of all) {
          await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: pr, branch: `agent/${pr}` });
          h.fake.addPull(REPO, pr, { headSha: head(pr, 0), headRef: `agent/${pr}` });
        }
        // Round 1: every pull request is red; each Task's attempt starts and wants its status.
        redHeads(h, all, 1);
        await h.tick();
        assert.equal(h.runner.starts.length, all.length);
        for (const s of h.runner.starts) h.runner.finish(s.runId);
        await h.app.settle();

        // Round 2: red again, budget 1 spent: every Task stops and is handed off in the same tick. The
        // last one read (#20) must not wait behind the others' statuses.
        redHeads(h, all, 2);
        const started = Date.now();
        const ticking = h.tick();
        while (!labels(h, 20).includes('fixloop:needs-human')) {
          assert.ok(Date.now() - started < 30_000, 'the hand-off of #20 never landed');
          await sleep(10);
        }
        const handedOffMs = Date.now() - started;
        await ticking;
        // Queued behind four statuses it would come 4 slots in at the earliest (timers are never early),
        // so that is the bound, the widest that still tells the two apart (a loaded machine runs late).
        assert.ok(
          handedOffMs < 4 * PACE_MS,
          `#20 was labelled ${handedOffMs} ms into the tick; four statuses ahead of it would take ${4 * PACE_MS} ms`,
        );
        for (const pr of others) assert.deepEqual(labels(h, pr), ['fixloop:needs-human']);

        // One try per episode step (one a round here, as the clock moves two minutes a tick), not one per read and decision.
        assert.ok(statusWrites.length <= 2, `the status was tried ${statusWrites.length} times`);
        const warned = t.lines.filter((l) => l.includes('refused the fixloop commit status'));
        assert.equal(warned.length, 1, t.lines.join(''));
        assert.match(warned[0]!, /statuses: write/);
        assert.equal(t.lines.filter((l) => l.includes('could not write the fixloop commit status')).length, 0);
        const metrics = await (
          await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
        ).text();
        assert.match(metrics, /^fixloop_host_write_backoffs_total\{kind="commit_status"\} 1$/m);
      } finally {
        await t.close();
      }
    });

    test("T1 bounded: with the base branch's checks never answering, five reds on five pull requests all reach the agent within seconds", async () => {
      const baseReads: string[] = [];
      const hang = () => new Promise<never>(() => undefined);
      const isSha = (ref: string) => /^[0-9a-f]{40}$/.test(ref);
      const t = await start(kind, (real) => ({
        ...real,
        // The host takes the request for the base branch's checks and never answers it.
        listCheckRuns: (repository, ref) =>
          isSha(ref) ? real.listCheckRuns(repository, ref) : (baseReads.push(ref), hang()),
        listStatuses: (repository, ref) => (isSha(ref) ? real.listStatuses(repository, ref) : hang()),
      }));
      const { h } = t;
      try {
        const prs = [51, 52, 53, 54, 55];
        for (const pr of prs) {
          await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: pr, branch: `agent/${pr}` });
          h.fake.addPull(REPO, pr, { headSha: head(pr, 1), headRef: `agent/${pr}` });
        }
        const started = Date.now();
        for (const pr of prs) {
          const d = delivery(
            'check_run',
            checkRunPayload({
              repo: REPO_SPEC,
              sha: head(pr, 1),
              id: 9000 + pr,
              name: 'test',
              conclusion: 'failure',
              pr: { number: pr, headSha: head(pr, 1) },
              branch: `agent/${pr}`,
            }),
          );
          assert.ok((await post(h.url, d, SECRET)).status < 300);
        }
        while (h.runner.starts.length < prs.length) {
          assert.ok(Date.now() - started < 60_000, `only ${h.runner.starts.length} of 5 reached the agent in 60 s`);
          await sleep(20);
        }
        const elapsed = Date.now() - started;
        // One bounded wait (3 s) for the first red; the reds after it know the base is not answering. A
        // bound, as the time is the behaviour, and a generous one (a loaded machine runs late): a wait per
        // red would take five of them, 15 s, and timers are never early.
        assert.ok(elapsed < 4 * 3_000, `all five reached the agent after ${elapsed} ms`);
        assert.deepEqual(h.runner.starts.map((s) => s.pullRequest).sort(), prs);
        assert.equal(new Set(baseReads).size, 1, `one base branch: ${baseReads.join(', ')}`);
        assert.equal(baseReads.length, 1, 'asked once, not once per red');
        const warned = t.lines.filter((l) => l.includes('for triage (T1)'));
        assert.equal(warned.length, 1, t.lines.join(''));
      } finally {
        await t.close();
      }
    });
  });
}
