// Issue 19, SPEC Q2/Q3 with F1, F2, P1: standing on GitLab is the author's member access level on the
// project, read through the API when a note arrives (Owner → OWNER, Maintainer → MEMBER, Developer →
// COLLABORATOR, less → NONE), under the same rule as GitHub's associations. A note from a non-member,
// or from a member below Developer, steers nothing and resumes nothing — its `/fixloop …` command is
// recorded and refused; a Developer's command is honoured.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import {
  ACCESS,
  GL_PROJECT,
  redPush,
  sha,
  startGitLabHarness,
  type GitLabHarness,
} from '../../support/gitlab-harness.js';

type Row = { outcome: string; reason: string | null; detail: string | null };

for (const kind of DATABASE_KINDS) {
  describe(`GitLab standing decides who may steer (${kind})`, () => {
    let h: GitLabHarness;
    let nextIid = 40;
    before(async () => {
      h = await startGitLabHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      h.fake.addToken('stranger'); // a GitLab user, no member of the project
      h.fake.addMember(GL_PROJECT, 'rita-reporter', ACCESS.reporter);
      h.fake.addMember(GL_PROJECT, 'dev-dora', ACCESS.developer);
      h.fake.addMember(GL_PROJECT, 'max-maintainer', ACCESS.maintainer);
      // A Maintainer whose account is blocked, and one whose membership awaits approval (decision 0042).
      h.fake.addMember(GL_PROJECT, 'bea-blocked', ACCESS.maintainer);
      h.fake.setUserState('bea-blocked', 'blocked');
      h.fake.addMember(GL_PROJECT, 'ava-awaiting', ACCESS.maintainer, { membershipState: 'awaiting' });
    });
    after(() => h.close());

    async function newTask(): Promise<{ id: number; iid: number }> {
      const iid = nextIid++;
      h.openMergeRequest(iid, { headSha: sha('0') });
      const created = await h.api('POST', '/api/tasks', {
        repository: GL_PROJECT,
        pullRequest: iid,
        branch: `agent/${iid}`,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return { id: created.body.id, iid };
    }
    const view = async (id: number) => (await h.api('GET', `/api/tasks/${id}`)).body;
    const startsOf = (id: number) => h.runner.starts.filter((s) => s.taskId === id).length;

    /** A note on the merge request, by its Note hook; the decisions it led to. */
    async function note(iid: number, author: string, body: string): Promise<Row[]> {
      const r = await h.hook('Note Hook', h.noteHook(iid, { body, author }));
      assert.equal(r.status, 202, JSON.stringify(r.body));
      await h.app.settle();
      return (await h.api('GET', `/api/deliveries?delivery=${r.key}`)).body.decisions;
    }
    const refusal = (rows: Row[]) => {
      assert.ok(!rows.some((r) => r.outcome === 'claimed' || r.outcome === 'dispatched'), JSON.stringify(rows));
      return rows.find((r) => r.outcome === 'refused')?.reason ?? null;
    };

    /** A Task whose loop stopped: budget 1 spent on one red head, a second red head filed the notice. */
    async function stoppedTask(): Promise<{ id: number; iid: number }> {
      const t = await newTask();
      await redPush(h, t.iid, '1', 'FAIL one');
      await redPush(h, t.iid, '2', 'FAIL two');
      const v = await view(t.id);
      assert.equal(v.notice?.reason, 'budget_spent', JSON.stringify(v.notice));
      assert.equal(startsOf(t.id), 1);
      return t;
    }

    for (const [who, level] of [
      ['stranger', 'a non-member'],
      ['rita-reporter', 'a Reporter'],
      ['bea-blocked', 'a blocked Maintainer'],
      ['ava-awaiting', 'a Maintainer whose membership awaits approval'],
    ] as const) {
      test(`F1/P1: \`/fixloop off\` in a note from ${level} is refused and changes nothing`, async () => {
        const t = await newTask();
        const rows = await note(t.iid, who, '/fixloop off');
        assert.equal(refusal(rows), 'command_without_standing');
        assert.match(rows.find((r) => r.outcome === 'refused')!.detail ?? '', new RegExp(who));
        assert.equal((await view(t.id)).loopOff, false, 'the loop is still on');
      });

      test(`F1/F2/P1: after a stop, \`/fixloop retry\` in a note from ${level} resumes nothing`, async () => {
        const t = await stoppedTask();
        assert.equal(refusal(await note(t.iid, who, '/fixloop retry')), 'command_without_standing');
        for (let i = 0; i < 3; i++) await h.nextTick();
        const v = await view(t.id);
        assert.equal(v.attempts.length, 1, 'no attempt granted');
        assert.equal(v.extraAttempts, 0);
        assert.equal(startsOf(t.id), 1, 'the agent is not resumed');
        assert.deepEqual(h.labels(t.iid), ['fixloop:needs-human'], 'still handed to a person');
      });
    }

    test('F1/P1: `/fixloop off` from a Developer while GitLab cannot say their access level is refused `standing_unreadable` and changes nothing', async () => {
      h.fake.addMember(GL_PROJECT, 'dev-fern', ACCESS.developer);
      const t = await newTask();
      h.fake.failNext(/^GET \/api\/v4\/users\?username=dev-fern(&|$)/, [403]);
      const rows = await note(t.iid, 'dev-fern', '/fixloop off');
      assert.equal(refusal(rows), 'standing_unreadable');
      assert.match(rows.find((r) => r.outcome === 'refused')!.detail ?? '', /\/fixloop off by dev-fern/);
      assert.equal((await view(t.id)).loopOff, false, 'the loop is still on');
      assert.equal(refusal(await note(t.iid, 'dev-fern', '/fixloop off')), null, 'asked again, it is honoured');
      assert.equal((await view(t.id)).loopOff, true);
    });

    test('F2: a plain note from a non-member rings nothing', async () => {
      const t = await newTask();
      const rows = await note(t.iid, 'stranger', 'Please just delete the failing test.');
      assert.ok(
        rows.some((r) => r.outcome === 'refused'),
        JSON.stringify(rows),
      );
      assert.equal((await view(t.id)).attempts.length, 0);
      assert.equal(startsOf(t.id), 0);
    });

    test("P1: a Developer's `/fixloop off` is honoured (and a Maintainer's `/fixloop on` turns it back on)", async () => {
      const t = await newTask();
      const off = await note(t.iid, 'dev-dora', '/fixloop off');
      assert.equal(refusal(off), null, JSON.stringify(off));
      assert.equal((await view(t.id)).loopOff, true);
      const on = await note(t.iid, 'max-maintainer', '/fixloop on');
      assert.equal(refusal(on), null, JSON.stringify(on));
      assert.equal((await view(t.id)).loopOff, false);
    });

    test("F2: a Developer's `/fixloop status` is answered on the merge request in GitLab's words", async () => {
      const t = await newTask();
      const rows = await note(t.iid, 'dev-dora', '/fixloop status');
      assert.equal(refusal(rows), null, JSON.stringify(rows));
      const answer = h.notes(t.iid).find((n) => n.body.startsWith('fixloop: the loop is'));
      assert.ok(answer, JSON.stringify(h.notes(t.iid)));
      assert.match(answer.body, /for this merge request — /);
      assert.doesNotMatch(answer.body, /pull request/);
    });

    test("P1/K5: after a stop, a Developer's `/fixloop retry` grants exactly one more attempt, which the next poll spends", async () => {
      const t = await stoppedTask();
      const rows = await note(t.iid, 'dev-dora', '/fixloop retry');
      assert.equal(refusal(rows), null, JSON.stringify(rows));
      assert.equal((await view(t.id)).extraAttempts, 1);
      await h.nextTick();
      await h.nextTick();
      const v = await view(t.id);
      assert.equal(startsOf(t.id), 2, 'resumed once more');
      assert.equal(v.attempts.length, 2);
    });
  });
}
