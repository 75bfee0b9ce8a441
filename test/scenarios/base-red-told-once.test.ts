// Issue 36 item 4 against the fake GitHub, on both databases: a red base told once. Eight pull requests
// held by one red `main` file exactly one base notice, shown in the Inbox, and (the Work's `baseIssue`)
// exactly one issue on the repository naming the check and the commit; `main` healing closes both (the
// issue after a comment) and the held pull requests are judged again as before. A check suite or
// workflow run delivered before its jobs are stored is judged by its jobs read from GitHub, so the hold
// holds in that order of arrival too. Two replicas holding pull requests at once file one notice.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS, createTestDatabase } from '../support/databases.js';
import { startGitHubHarness, nextTick, sha, FakeClock, type GitHubHarness } from '../support/github-harness.js';
import { API_TOKEN, REPO as REPO_SPEC, SECRET } from '../support/harness.js';
import { checkSuitePayload, delivery, post, workflowRunPayload } from '../support/deliveries.js';
import { startFakeGitHub } from '../support/fake-github/server.js';
import { createGitHub } from '../../src/github/client.js';
import { openDatabase, type Db } from '../../src/ledger/db.js';
import { migrateToLatest } from '../../src/ledger/migrations.js';
import { createLedger } from '../../src/ledger/ledger.js';
import { createBaseRedNotice } from '../../src/app/base-red-notice.js';
import { GITHUB_WORDS } from '../../src/github/words.js';

const REPO = 'acme/shop';
const MAIN = sha('m');
const FAIL = 'FAIL src/locale.test.ts\nexpected "1,5" to be "1.5"';

/** The harness's Work, with `baseIssue` set as the brief's per-Work option. */
const WORKS = (baseIssue: boolean) => [
  {
    name: 'shop',
    account: 'acme',
    baseIssue,
    repositories: [
      { name: 'acme/shop', role: 'data' },
      { name: 'acme/shop-site', role: 'website' },
    ],
  },
];

/** `main` at `commit`, with `test` as given. */
function mainAt(h: GitHubHarness, commit: string, conclusion: 'failure' | 'success') {
  h.fake.setBranch(REPO, 'main', commit);
  h.fake.addCheckRun(REPO, commit, { name: 'test', status: 'completed', conclusion });
}

/** A Task for pull request `pr` whose head `c` fails `test` on GitHub (not yet delivered or polled). */
async function heldPull(h: GitHubHarness, pr: number, c: string): Promise<number> {
  const { body } = await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: pr, branch: `agent/${c}` });
  h.fake.addPull(REPO, pr, { headSha: sha(c), headRef: `agent/${c}` });
  h.fake.addCheckRun(REPO, sha(c), { name: 'test', status: 'completed', conclusion: 'failure', outputSummary: FAIL });
  return body.id as number;
}

async function inboxHtml(h: GitHubHarness): Promise<string> {
  const signIn = await fetch(`${h.url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: API_TOKEN }).toString(),
    redirect: 'manual',
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  return (await fetch(`${h.url}/inbox`, { headers: { cookie } })).text();
}

const decisions = async (h: GitHubHarness, taskId: number) =>
  (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=500`)).body.decisions as Array<{
    reason: string | null;
    detail: string | null;
  }>;

for (const kind of DATABASE_KINDS) {
  describe(`a red base told once, on GitHub (${kind})`, () => {
    test('eight pull requests held by one red main: one notice in the Inbox, one issue; main heals: both closed, the held judged again', async () => {
      const h = await startGitHubHarness(kind, { configExtra: { works: WORKS(true) } });
      try {
        mainAt(h, MAIN, 'failure');
        const tasks: number[] = [];
        for (let i = 0; i < 8; i++) tasks.push(await heldPull(h, 51 + i, String.fromCharCode(97 + i)));
        h.clock.advance(120_000);
        await h.tick();
        await nextTick(h); // the poll offers the reds again: they stay held, and join nothing twice

        assert.equal(h.runner.starts.length, 0, 'no run while main fails the same check');
        for (const id of tasks) assert.ok((await decisions(h, id)).some((d) => d.reason === 'red_on_base'));
        const open = await h.app.ledger.openBaseReds(10);
        assert.equal(open.length, 1, 'exactly one base notice');
        assert.deepEqual(
          open[0]!.pullRequests,
          tasks.map((_, i) => 51 + i),
        );
        assert.deepEqual(open[0]!.checks, ['test']);
        assert.equal(open[0]!.baseSha, MAIN);
        const issues = Object.values(h.fake.state.issues);
        assert.equal(issues.length, 1, 'exactly one issue on the repository');
        assert.equal(issues[0]!.title, 'main is failing test');
        assert.match(issues[0]!.body ?? '', new RegExp(`fails \`test\` at commit ${MAIN}`));
        assert.equal(open[0]!.issueNumber, issues[0]!.number);
        assert.equal(h.fake.requestsTo(/\/repos\/acme\/shop\/issues$/).length, 1, 'one issue asked for');

        let inbox = await inboxHtml(h);
        assert.match(inbox, /Base branches failing/);
        assert.match(inbox, /main of acme\/shop is failing <code>|main of acme\/shop is failing `test`/);
        assert.match(inbox, /acme\/shop#58/);

        // main is fixed: the next tick reads it passing `test` (after the cached read's interval).
        mainAt(h, sha('n'), 'success');
        await nextTick(h);
        assert.deepEqual(await h.app.ledger.openBaseReds(10), [], 'the notice is closed');
        const closed = h.fake.state.issues[`acme/shop#${issues[0]!.number}`]!;
        assert.equal(closed.state, 'closed');
        const comments = h.fake.state.comments[`acme/shop#${closed.number}`] ?? [];
        assert.equal(comments.length, 1);
        assert.match(comments[0]!.body, /passes `test` again/);
        inbox = await inboxHtml(h);
        assert.doesNotMatch(inbox, /Base branches failing/);
        await nextTick(h);
        assert.equal(Object.values(h.fake.state.issues).length, 1, 'closed once, nothing filed again');

        // As before: a held result stays held; a new run of the pull request's check decides again.
        assert.equal(h.runner.starts.length, 0);
        h.clock.advance(120_000);
        h.fake.addCheckRun(REPO, sha('a'), {
          name: 'test',
          status: 'completed',
          conclusion: 'failure',
          outputSummary: FAIL,
        });
        await h.tick();
        assert.equal(h.runner.starts.length, 1, 'the re-run against the fixed main is the pull request’s own');
      } finally {
        await h.close();
      }
    });

    test('without baseIssue: the one notice only, no issue; a red of a check main passes is the pull request’s own', async () => {
      const h = await startGitHubHarness(kind);
      try {
        mainAt(h, MAIN, 'failure');
        await heldPull(h, 71, 'x');
        await heldPull(h, 72, 'y');
        h.clock.advance(120_000);
        await h.tick();
        assert.equal((await h.app.ledger.openBaseReds(10)).length, 1);
        assert.equal(Object.values(h.fake.state.issues).length, 0);
        assert.equal(h.fake.requestsTo(/\/issues$/).length, 0);
        // lint fails only on the pull request: an attempt, and the base notice does not take it in.
        h.clock.advance(120_000);
        h.fake.setHead(REPO, 71, sha('z'));
        h.fake.addCheckRun(REPO, sha('z'), { name: 'lint', status: 'completed', conclusion: 'failure' });
        await h.tick();
        assert.equal(h.runner.starts.length, 1);
        assert.deepEqual((await h.app.ledger.openBaseReds(10))[0]!.checks, ['test']);
      } finally {
        await h.close();
      }
    });

    for (const summary of ['check_suite', 'workflow_run'] as const) {
      test(`a ${summary} delivered before its jobs are stored is judged by its jobs read from GitHub: held, told`, async () => {
        const h = await startGitHubHarness(kind);
        try {
          mainAt(h, MAIN, 'failure');
          const taskId = await heldPull(h, 81, 'q');
          const pr = { number: 81, headSha: sha('q') };
          const payload =
            summary === 'check_suite'
              ? checkSuitePayload({ repo: REPO_SPEC, sha: sha('q'), id: 9081, pr })
              : workflowRunPayload({ repo: REPO_SPEC, sha: sha('q'), id: 9082, pr });
          assert.equal((await post(h.url, delivery(summary, payload), SECRET)).status, 202);
          await h.app.settle();
          assert.equal(h.runner.starts.length, 0, 'no red-on-base failure sent to the agent');
          const held = (await decisions(h, taskId)).find((d) => d.reason === 'red_on_base');
          assert.match(held?.detail ?? '', /its failing jobs \(test\) are failing on main too/);
          assert.deepEqual((await h.app.ledger.openBaseReds(10))[0]?.pullRequests, [81]);
          assert.ok(h.fake.requestsTo(new RegExp(`/commits/${sha('q')}/check-runs`)).length >= 1, 'its jobs read');
        } finally {
          await h.close();
        }
      });
    }

    test('exactly once: two replicas (SQLite: concurrent evaluations) holding eight pull requests at once file one notice and one issue', async () => {
      const tdb = await createTestDatabase(kind);
      const fake = await startFakeGitHub();
      const clock = new FakeClock();
      fake.state.now = () => clock.now();
      const dbs: Db[] = [];
      try {
        const replica = () => {
          const db = openDatabase(tdb.url);
          dbs.push(db);
          return createLedger(db, clock);
        };
        const a = replica();
        await migrateToLatest(dbs[0]!.kysely, dbs[0]!.dialect);
        // SQLite serves one process (its connections in one process would wait on each other
        // synchronously): there, concurrent evaluations share one connection; PostgreSQL gets two replicas.
        const b = kind === 'postgres' ? replica() : createLedger(dbs[0]!, clock);
        const github = createGitHub({
          apiUrl: fake.url,
          auth: { kind: 'token', token: fake.addUserToken('fixloop-bot') },
          throttle: { spaceWrites: false },
        });
        const notices = [a, b].map((ledger) =>
          createBaseRedNotice({
            ledger,
            host: github,
            wordsOf: () => GITHUB_WORDS,
            issueFor: () => true,
            readBranch: async () => ({ ref: 'main', failing: [] }),
            logger: { debug() {}, info() {}, warn() {}, error() {} },
          }),
        );
        const tasks = [];
        for (let pr = 1; pr <= 8; pr++) {
          const created = await a.createTask({
            work: 'shop',
            repository: REPO,
            pullRequest: pr,
            branch: `agent/${pr}`,
            resumeRef: null,
          });
          assert.ok('task' in created);
          tasks.push(created.task);
        }
        const base = { ref: 'main', failing: ['test'], sha: MAIN };
        await Promise.all(tasks.map((t, i) => notices[i % 2]!.held(t, base, ['test'])));
        const open = await b.openBaseReds(10);
        assert.equal(open.length, 1, 'one round');
        assert.deepEqual(
          [...open[0]!.pullRequests].sort((x, y) => x - y),
          [1, 2, 3, 4, 5, 6, 7, 8],
        );
        assert.equal(Object.values(fake.state.issues).length, 1, 'one issue');
        // Both replicas see it heal at once: closed once, the issue commented and closed once.
        const closed = await Promise.all(notices.map((n) => n.heal()));
        assert.equal(closed.flat().length, 1);
        assert.equal((fake.state.comments[`acme/shop#${open[0]!.issueNumber}`] ?? []).length, 1);
        // The next red is a new round: told again.
        await notices[1]!.held(tasks[0]!, base, ['test']);
        const next = await a.openBaseReds(10);
        assert.equal(next.length, 1);
        assert.equal(next[0]!.round, 2);
        fake.assertNoViolations();
      } finally {
        for (const db of dbs) await db.close();
        await fake.close();
        await tdb.drop();
      }
    });
  });
}
