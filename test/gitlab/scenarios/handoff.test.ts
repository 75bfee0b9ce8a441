// Issue 19, SPEC Q2/Q3 with K5, K8, G1: the hand-off on a GitLab merge request. On a stop, the
// `fixloop:needs-human` label and one note carrying the state — updated, never duplicated: not by
// more ticks, not by a restart of fixloop, not by a second stop after approve-one, not when the
// ledger lost the note's id; a hand-edited state note is reported and rewritten from the ledger.
// The reds come by webhook (Merge Request hook of the push, Job hook of the failed job) and the
// hand-off is the poll's, at the next tick.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS, createTestDatabase } from '../../support/databases.js';
import {
  GL_BOT,
  GL_PROJECT,
  openOnFakeGitLab,
  finishLast,
  redPush,
  sha,
  startGitLabHarness,
  startGitLabWorld,
  stateNotes,
  type GitLabHarness,
} from '../../support/gitlab-harness.js';
import { mrKey } from '../../support/fake-gitlab/state.js';
import { STATE_MARKER } from '../../../src/core/state-comment.js';

const BUDGET_1 = { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } };
const notes = (h: GitLabHarness, iid: number) => stateNotes(h, iid, STATE_MARKER);

async function newTask(h: GitLabHarness, iid: number): Promise<number> {
  h.openMergeRequest(iid, { headSha: sha('0') });
  const created = await h.api('POST', '/api/tasks', {
    repository: GL_PROJECT,
    pullRequest: iid,
    branch: `agent/${iid}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

/** A red head by webhook, then the next poll tick (where the hand-off happens); then the agent's run ends. */
async function redHead(h: GitLabHarness, iid: number, c: string, trace: string): Promise<void> {
  await redPush(h, iid, c, trace, { finish: false });
  await h.nextTick();
  await finishLast(h);
}

/** A person adds labels on the merge request (as GitLab's UI does). */
function personLabels(h: GitLabHarness, iid: number, labels: string[]): void {
  h.fake.state.labels[mrKey(GL_PROJECT, iid)] = labels;
  h.fake.state.mergeRequests[mrKey(GL_PROJECT, iid)]!.updatedAt = h.clock.now().toISOString();
}

for (const kind of DATABASE_KINDS) {
  describe(`GitLab hand-off on the merge request (${kind})`, () => {
    test('K5/K8: a stop labels the merge request and leaves one state note; more ticks, a restart and a second stop after approve-one never post another', async () => {
      const world = await startGitLabWorld();
      const db = await createTestDatabase(kind);
      let h = await openOnFakeGitLab(kind, world, { ...BUDGET_1, db });
      try {
        const taskId = await newTask(h, 21);
        await redHead(h, 21, '1', 'FAIL one\nexpected 1, got 2');
        assert.equal(h.runner.starts.length, 1);
        assert.equal(notes(h, 21).length, 1, 'the loop acted: its state is mirrored');
        assert.deepEqual(h.labels(21), []);

        await redHead(h, 21, '2', 'FAIL two\nTypeError'); // budget 1 spent → stop; the next tick hands off
        assert.equal(h.runner.starts.length, 1);
        assert.deepEqual(h.labels(21), ['fixloop:needs-human']);
        assert.equal(notes(h, 21).length, 1, 'updated, never duplicated');
        const note = notes(h, 21)[0]!;
        assert.match(note.body, /"reason": "budget_spent"/);
        assert.equal(note.author, GL_BOT);
        for (let i = 0; i < 4; i++) await h.nextTick();
        assert.equal(notes(h, 21).length, 1, 'however many ticks');

        // fixloop restarts on the same database: the note it finds is its own, kept, not posted again.
        await h.close();
        h = await openOnFakeGitLab(kind, world, { ...BUDGET_1, db });
        for (let i = 0; i < 3; i++) await h.nextTick();
        assert.equal(notes(h, 21).length, 1, 'one note after a restart');
        assert.equal(notes(h, 21)[0]!.id, note.id);
        assert.deepEqual(h.labels(21), ['fixloop:needs-human']);

        // A person adds approve-one: exactly one more attempt, and the label is consumed.
        personLabels(h, 21, ['fixloop:approve-one', 'fixloop:needs-human']);
        await h.nextTick(); // grants
        await h.nextTick(); // re-offers the red head under the new round
        assert.equal(h.runner.starts.length, 1, 'the restarted fixloop resumed the agent once');
        assert.deepEqual(h.labels(21), [], 'approve-one consumed, needs-human cleared');
        h.runner.finish(h.runner.starts[0]!.runId);
        await h.app.settle();

        await redHead(h, 21, '3', 'FAIL three\nsnapshot mismatch'); // the second stop
        assert.deepEqual(h.labels(21), ['fixloop:needs-human']);
        const inbox = (await h.api('GET', '/api/inbox')).body.notices.filter((n: any) => n.taskId === taskId);
        assert.equal(inbox.length, 2, 'one notice per stop');
        assert.equal(notes(h, 21).length, 1, 'still one state note, updated');
        assert.equal(notes(h, 21)[0]!.id, note.id);
        assert.equal(h.fake.state.createdNotes, 1, 'fixloop created exactly one note in all');
      } finally {
        await h.close();
        await db.drop();
        await world.fake.close();
      }
    });

    test("K8: when the ledger lost the state note's id, the note is found by its signed state and not posted again", async () => {
      const h = await startGitLabHarness(kind, BUDGET_1);
      try {
        const taskId = await newTask(h, 22);
        await redHead(h, 22, 'a', 'FAIL one');
        await redHead(h, 22, 'b', 'FAIL two'); // stop
        assert.equal(notes(h, 22).length, 1);
        const note = notes(h, 22)[0]!;
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.stateCommentId, String(note.id));
        // The id the ledger kept is lost (as when fixloop died between posting and recording it).
        await h.app.db.kysely.updateTable('tasks').set({ state_comment_id: null }).where('id', '=', taskId).execute();
        for (let i = 0; i < 3; i++) await h.nextTick();
        assert.equal(notes(h, 22).length, 1, 'found by its signed state, not posted again');
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.stateCommentId, String(note.id));
      } finally {
        await h.close();
      }
    });

    test('K8: a hand-edited state note is detected and reported, and rewritten from the ledger', async () => {
      const h = await startGitLabHarness(kind, BUDGET_1);
      try {
        const taskId = await newTask(h, 23);
        await redHead(h, 23, 'c', 'FAIL one');
        await redHead(h, 23, 'd', 'FAIL two');
        const kept = h.fake.state.notes[mrKey(GL_PROJECT, 23)]!.find((n) => n.body.startsWith(STATE_MARKER))!;
        const truth = kept.body;
        kept.body = truth.replace('"attemptsUsed": 1', '"attemptsUsed": 0');
        assert.notEqual(kept.body, truth);
        await h.nextTick();
        const log = (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=200`)).body.decisions;
        assert.ok(
          log.some((d: any) => d.reason === 'state_comment_tampered'),
          'reported',
        );
        assert.equal(notes(h, 23)[0]!.body, truth, 'rewritten from the ledger');
        assert.equal(notes(h, 23).length, 1);
        assert.equal((await h.api('GET', `/api/tasks/${taskId}`)).body.attempts.length, 1);
      } finally {
        await h.close();
      }
    });
  });
}
