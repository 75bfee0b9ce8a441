// SPEC K5, K8, G1, G2: the hand-off on the pull request. On a stop: the needs-human label and one
// state comment, updated and never duplicated; approve-one grants exactly one more attempt and is
// consumed; no answer in 8 hours parks the Task for good; a hand-edited state comment is reported.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import {
  startGitHubHarness,
  openOnFake,
  FakeClock,
  BOT_LOGIN,
  nextTick,
  redHead,
  sha,
  type GitHubHarness,
} from '../support/github-harness.js';
import { startFakeGitHub } from '../support/fake-github/server.js';
import { STATE_MARKER } from '../../src/core/state-comment.js';

const REPO_NAME = 'acme/shop';

const stateComments = (h: GitHubHarness, pr: number) =>
  (h.fake.state.comments[`${REPO_NAME}#${pr}`] ?? []).filter((c) => c.body.startsWith(STATE_MARKER));
const labels = (h: GitHubHarness, pr: number) => h.fake.state.pulls[`${REPO_NAME}#${pr}`]!.labels ?? [];

for (const kind of DATABASE_KINDS) {
  describe(`hand-off on the pull request (${kind})`, () => {
    test('K5/K8: a stop labels the PR and writes one state comment; approve-one grants exactly one more attempt and is removed', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 21,
          branch: 'agent/a',
        });
        h.fake.addPull(REPO_NAME, 21, { headSha: sha('0'), headRef: 'agent/a' });
        await redHead(h, 21, '1', 'failure one');
        assert.equal(h.runner.starts.length, 1);
        assert.equal(stateComments(h, 21).length, 1, 'the loop acted: its state is mirrored');
        assert.deepEqual(labels(h, 21), []);

        await redHead(h, 21, '2', 'failure two'); // budget 1 spent → stop; the same tick hands off
        assert.equal(h.runner.starts.length, 1);
        assert.deepEqual(labels(h, 21), ['fixloop:needs-human']);
        assert.equal(stateComments(h, 21).length, 1, 'updated, never duplicated');
        const body = stateComments(h, 21)[0]!.body;
        assert.match(body, /"reason": "budget_spent"/);
        assert.equal(stateComments(h, 21)[0]!.author, BOT_LOGIN);

        // A person adds approve-one: exactly one more attempt, and the label is consumed.
        h.fake.state.pulls[`${REPO_NAME}#21`]!.labels = ['fixloop:needs-human', 'fixloop:approve-one'];
        await nextTick(h); // grants
        await nextTick(h); // re-offers the red head under the new round
        assert.equal(h.runner.starts.length, 2, 'one more attempt past the cap');
        assert.deepEqual(labels(h, 21), [], 'approve-one consumed, needs-human cleared');
        h.runner.finish(h.runner.starts[1]!.runId);
        await h.app.settle();

        await redHead(h, 21, '3', 'failure three');
        assert.equal(h.runner.starts.length, 2, 'the grant was for one attempt only');
        assert.deepEqual(labels(h, 21), ['fixloop:needs-human']);
        const inbox = (await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === task.id);
        assert.equal(inbox.length, 2, 'one notice per stop');
        assert.equal(stateComments(h, 21).length, 1);
      } finally {
        await h.close();
      }
    });

    test('K5: a grant from the dashboard or the API clears the needs-human label at the next poll', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 24,
          branch: 'agent/d',
        });
        h.fake.addPull(REPO_NAME, 24, { headSha: sha('0'), headRef: 'agent/d' });
        await redHead(h, 24, 'a', 'one');
        await redHead(h, 24, 'b', 'two'); // stop
        assert.deepEqual(labels(h, 24), ['fixloop:needs-human']);

        assert.equal((await h.api('POST', `/api/tasks/${task.id}/approve-one`)).status, 200);
        await nextTick(h);
        assert.deepEqual(labels(h, 24), [], 'the loop is on again: the label went');
        assert.equal(h.runner.starts.length, 2, 'the granted attempt');
        const log = (await h.api('GET', `/api/deliveries?taskId=${task.id}&limit=200`)).body.decisions;
        assert.equal(log.filter((d: any) => d.reason === 'handoff_cleared').length, 1);
      } finally {
        await h.close();
      }
    });

    test('K5: with no answer within 8 hours the Task is parked and never re-enters the loop on its own', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 22,
          branch: 'agent/b',
        });
        h.fake.addPull(REPO_NAME, 22, { headSha: sha('0'), headRef: 'agent/b' });
        await redHead(h, 22, '4', 'one');
        await redHead(h, 22, '5', 'two'); // stop
        assert.deepEqual(labels(h, 22), ['fixloop:needs-human']);

        h.clock.advance(7 * 3_600_000);
        await nextTick(h);
        assert.equal((await h.api('GET', `/api/tasks/${task.id}`)).body.parkedAt, null, 'still waiting before 8 hours');
        h.clock.advance(3_600_000 + 1000);
        await h.tick();
        const parked = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.ok(parked.parkedAt, 'parked after 8 hours');
        assert.match(stateComments(h, 22)[0]!.body, /"parked": true/);

        // Parked is final: a late approve-one and a new red head both do nothing.
        h.fake.state.pulls[`${REPO_NAME}#22`]!.labels = ['fixloop:needs-human', 'fixloop:approve-one'];
        await nextTick(h);
        await redHead(h, 22, '6', 'three');
        assert.equal(h.runner.starts.length, 1);
        assert.equal((await h.api('GET', `/api/tasks/${task.id}`)).body.attempts.length, 1);
      } finally {
        await h.close();
      }
    });

    test('K8: a hand-edited state comment is detected and reported; the ledger stays the truth', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 23,
          branch: 'agent/c',
        });
        h.fake.addPull(REPO_NAME, 23, { headSha: sha('0'), headRef: 'agent/c' });
        await redHead(h, 23, '7', 'one');
        await redHead(h, 23, '8', 'two');
        const comment = stateComments(h, 23)[0]!;
        const truth = comment.body;
        comment.body = truth.replace('"attemptsUsed": 1', '"attemptsUsed": 0');
        assert.notEqual(comment.body, truth);
        await nextTick(h);
        const log = (await h.api('GET', `/api/deliveries?taskId=${task.id}&limit=200`)).body.decisions;
        assert.ok(
          log.some((d: any) => d.reason === 'state_comment_tampered'),
          'reported',
        );
        assert.equal(stateComments(h, 23)[0]!.body, truth, 'rewritten from the ledger');
        assert.equal(stateComments(h, 23).length, 1);
        assert.equal((await h.api('GET', `/api/tasks/${task.id}`)).body.attempts.length, 1);
      } finally {
        await h.close();
      }
    });

    test("K8: a token that may not read GET /user (an installation token, as Actions' GITHUB_TOKEN is) keeps one state comment over many ticks, found by the ledger's id and then by its signed state", async () => {
      const fake = await startFakeGitHub();
      const clock = new FakeClock();
      fake.state.now = () => clock.now();
      const token = fake.addInstallationToken('acme');
      const h = await openOnFake(kind, { fake, clock, token }, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 24,
          branch: 'agent/d',
        });
        h.fake.addPull(REPO_NAME, 24, { headSha: sha('0'), headRef: 'agent/d' });
        await redHead(h, 24, '1', 'failure one');
        assert.equal(h.runner.starts.length, 1);
        for (let i = 0; i < 5; i++) await nextTick(h);
        assert.equal(stateComments(h, 24).length, 1, 'watching: one comment, however many ticks');
        await redHead(h, 24, '2', 'failure two'); // the budget of 1 is spent: stop and hand off
        for (let i = 0; i < 5; i++) await nextTick(h);
        assert.deepEqual(labels(h, 24), ['fixloop:needs-human']);
        assert.equal(stateComments(h, 24).length, 1, 'stopped: still one comment');
        const comment = stateComments(h, 24)[0]!;
        assert.match(comment.body, /"reason": "budget_spent"/);
        assert.equal(comment.authorType, 'Bot');
        assert.ok(fake.requestsTo(/\/user$/).length > 0, 'fixloop did ask who it is');
        assert.ok(
          fake.requestsTo(/\/user$/).every((r) => r.status === 403),
          'and the token may not say',
        );
        assert.equal((await h.api('GET', `/api/tasks/${task.id}`)).body.stateCommentId, String(comment.id));

        // The id the ledger kept is lost (as when fixloop died between posting and recording it):
        // the signed state in the comment still says it is fixloop's own.
        await h.app.db.kysely.updateTable('tasks').set({ state_comment_id: null }).where('id', '=', task.id).execute();
        for (let i = 0; i < 3; i++) await nextTick(h);
        assert.equal(stateComments(h, 24).length, 1, 'found by its signed state, not posted again');
        assert.equal((await h.api('GET', `/api/tasks/${task.id}`)).body.stateCommentId, String(comment.id));
      } finally {
        await h.close();
        fake.assertNoViolations();
        await fake.close();
      }
    });

    test("G1/K5: approve-one opens a new stop round, and that round's stop files exactly one new notice, however many reds follow", async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      try {
        const { body: task } = await h.api('POST', '/api/tasks', {
          repository: REPO_NAME,
          pullRequest: 25,
          branch: 'agent/e',
        });
        const notices = async () =>
          (await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === task.id);
        h.fake.addPull(REPO_NAME, 25, { headSha: sha('0'), headRef: 'agent/e' });
        await redHead(h, 25, '1', 'failure one');
        await redHead(h, 25, '2', 'failure two'); // round 0 stops
        assert.equal((await notices()).length, 1);
        const first = await h.api('GET', `/api/tasks/${task.id}`);
        assert.equal(first.body.stopRound, 0);

        h.fake.state.pulls[`${REPO_NAME}#25`]!.labels = ['fixloop:needs-human', 'fixloop:approve-one'];
        await nextTick(h); // the grant opens round 1 and clears the stop marker
        const granted = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(granted.stopRound, 1);
        assert.equal(granted.noticeAt, null, 'the new round has no notice yet');
        assert.equal((await notices()).length, 1, 'the grant itself files nothing');
        await nextTick(h); // the red head is re-offered: the one granted attempt
        assert.equal(h.runner.starts.length, 2);
        h.runner.finish(h.runner.starts[1]!.runId);
        await h.app.settle();

        // Round 1 stops: one new notice, and every later red or tick is a read (G2).
        await redHead(h, 25, '3', 'failure three');
        await redHead(h, 25, '4', 'failure four');
        for (let i = 0; i < 3; i++) await nextTick(h);
        const all = await notices();
        assert.equal(all.length, 2, 'one notice for each round');
        assert.equal(h.runner.starts.length, 2);
        assert.equal(stateComments(h, 25).length, 1);
      } finally {
        await h.close();
      }
    });
  });
}
