// Issue 19, SPEC F1 with Q1/Q3, A3: "Request changes" on GitLab. GitLab keeps one state per reviewer
// and announces a submitted review as a Merge Request hook `update` (no `oldrev`) whose only changes are
// the reviewers' states (and its own updated_at/updated_by_id). A Developer-level reviewer whose state
// becomes `requested_changes` resumes the agent once, with the review frame — which names the reviewer
// and, since the hook carries no review text, tells the agent to read the merge request's threads —
// and its redelivery is a duplicate. A non-member or a Reporter doing the same is refused for want of
// standing; a reviewer approving is no rejection; an update that changes labels as well is a
// merge-request change, not a review.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import {
  ACCESS,
  GL_PROJECT,
  gitlabTimeOf,
  sha,
  startGitLabHarness,
  type GitLabHarness,
  type Sent,
} from '../../support/gitlab-harness.js';

type Row = { outcome: string; reason: string | null; detail: string | null };

for (const kind of DATABASE_KINDS) {
  describe(`GitLab reviewers requesting changes (${kind})`, () => {
    let h: GitLabHarness;
    let nextIid = 70;
    before(async () => {
      h = await startGitLabHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '3' } });
      h.fake.addToken('stranger'); // a GitLab user, no member of the project
      h.fake.addMember(GL_PROJECT, 'rita-reporter', ACCESS.reporter);
      h.fake.addMember(GL_PROJECT, 'dev-dora', ACCESS.developer);
      // Decision 0042: a Maintainer whose account is blocked, one whose membership awaits approval.
      h.fake.addMember(GL_PROJECT, 'bea-blocked', ACCESS.maintainer);
      h.fake.setUserState('bea-blocked', 'blocked');
      h.fake.addMember(GL_PROJECT, 'ava-awaiting', ACCESS.maintainer, { membershipState: 'awaiting' });
    });
    after(() => h.close());

    async function newTask(): Promise<{ id: number; iid: number; head: string }> {
      const iid = nextIid++;
      const head = sha(String(iid % 10));
      h.openMergeRequest(iid, { headSha: head });
      const created = await h.api('POST', '/api/tasks', {
        repository: GL_PROJECT,
        pullRequest: iid,
        branch: `agent/${iid}`,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return { id: created.body.id, iid, head };
    }
    const view = async (id: number) => (await h.api('GET', `/api/tasks/${id}`)).body;
    const startsOf = (id: number) => h.runner.starts.filter((s) => s.taskId === id);

    /** The fake's user id of `username` (a reviewer's `id` in the hook is GitLab's user id). */
    function userId(username: string): number {
      const found = Object.values(h.fake.state.users).find((u) => u.username === username);
      assert.ok(found, `no GitLab user ${username}`);
      return found.id;
    }

    /**
     * The Merge Request hook GitLab sends when `reviewer` submits a review moving their state from
     * `from` to `to`: an `update` without `oldrev`, its changes the reviewers (and updated_at and
     * updated_by_id), plus whatever `also` adds. Built from the documented example as the harness builds it.
     */
    function reviewHook(
      iid: number,
      reviewer: string,
      from: string,
      to: string,
      also: Record<string, unknown> = {},
    ): any {
      const p = h.mergeRequestHook(iid, { action: 'update' });
      const id = userId(reviewer);
      const who = { id, name: reviewer, username: reviewer, avatar_url: null };
      const now = gitlabTimeOf(h.clock.now());
      p.user = { ...p.user, id, name: reviewer, username: reviewer };
      p.reviewers = [{ ...who, state: to }];
      p.changes = {
        updated_at: { previous: gitlabTimeOf(new Date(h.clock.now().getTime() - 60_000)), current: now },
        updated_by_id: { previous: null, current: id },
        reviewers: { previous: [{ ...who, state: from }], current: [{ ...who, state: to }] },
        ...also,
      };
      return p;
    }

    async function send(body: unknown, o: { key?: string } = {}): Promise<Sent> {
      const r = await h.hook('Merge Request Hook', body, o);
      await h.app.settle();
      return r;
    }
    const decisionsOf = async (key: string): Promise<Row[]> =>
      (await h.api('GET', `/api/deliveries?delivery=${encodeURIComponent(key)}`)).body.decisions;
    /** The kind the delivery was stored as (review.submitted or pr.changed). */
    async function storedKind(key: string): Promise<string[]> {
      const rows = await h.app.db.kysely.selectFrom('events').select(['kind']).where('delivery_id', '=', key).execute();
      return rows.map((r) => r.kind);
    }

    test('decision 0079: what the reviewer wrote in the discussions — the summary, then each open thread under its file — is the review text the agent reads', async () => {
      const t = await newTask();
      h.fake.addNote(GL_PROJECT, t.iid, { body: 'Two things before this can merge.', author: 'dev-dora' });
      h.fake.addNote(GL_PROJECT, t.iid, {
        body: 'Round the total here, not in the view.',
        author: 'dev-dora',
        thread: { file: 'src/cart.ts', line: 3 },
      });
      // Someone else's note, and a thread of hers already resolved, are not what she asks now.
      h.fake.addNote(GL_PROJECT, t.iid, { body: 'LGTM from me', author: 'rita-reporter' });
      const done = h.fake.addNote(GL_PROJECT, t.iid, {
        body: 'Rename this file.',
        author: 'dev-dora',
        thread: { file: 'src/old.ts', line: 1 },
      });
      h.fake.resolveThread(GL_PROJECT, t.iid, done.discussionId);
      const r = await send(reviewHook(t.iid, 'dev-dora', 'unreviewed', 'requested_changes'));
      assert.equal(r.status, 202, JSON.stringify(r.body));

      const starts = startsOf(t.id);
      assert.equal(starts.length, 1);
      const prompt = starts[0]!.prompt;
      assert.match(
        prompt,
        /Two things before this can merge\.\s+On src\/cart\.ts:\s+Round the total here, not in the view\./,
      );
      assert.doesNotMatch(prompt, /LGTM from me|Rename this file|has no summary text/);
      const v = await view(t.id);
      assert.match(v.rejections[0].body, /^Two things before this can merge\./);
    });

    test('F1/A3: a Developer\'s "Request changes" resumes the agent once with the review frame (changes requested, no review text: read the threads); its redelivery is a duplicate and resumes nothing', async () => {
      const t = await newTask();
      const r = await send(reviewHook(t.iid, 'dev-dora', 'unreviewed', 'requested_changes'));
      assert.equal(r.status, 202, JSON.stringify(r.body));
      assert.deepEqual(await storedKind(r.key), ['review.submitted']);
      const rows = await decisionsOf(r.key);
      assert.ok(!rows.some((d) => d.outcome === 'refused'), JSON.stringify(rows));

      const starts = startsOf(t.id);
      assert.equal(starts.length, 1, 'the agent is resumed once');
      const v = await view(t.id);
      assert.equal(v.rejections.length, 1);
      assert.equal(v.rejections[0].source, 'review');
      assert.equal(v.attempts.length, 1);
      assert.match(v.attempts[0].coordinate, /^review:\d+$/);

      const prompt = starts[0]!.prompt;
      assert.ok(
        new RegExp(
          `^A reviewer(?:, "dev-dora",)? requested changes on merge request ${GL_PROJECT}!${t.iid} at commit ${t.head}\\.`,
        ).test(prompt),
        prompt,
      );
      assert.ok(prompt.includes("Read the merge request's discussion threads"), prompt);
      // dev-dora wrote nothing in the discussions: the frame says the review has no text, in GitLab's words.
      assert.ok(
        prompt.includes('The review has no summary text; its requests are in its comments on the merge request.'),
        prompt,
      );
      assert.ok(!prompt.includes('pull request '), prompt);

      const again = await send(reviewHook(t.iid, 'dev-dora', 'unreviewed', 'requested_changes'), { key: r.key });
      assert.deepEqual([again.status, again.body.outcome], [200, 'duplicate']);
      for (let i = 0; i < 2; i++) await h.nextTick();
      assert.equal(startsOf(t.id).length, 1, 'a redelivery resumes nothing');
      assert.equal((await view(t.id)).rejections.length, 1, 'and records no second rejection');
    });

    test('F1: the review frame names the reviewer, quoted', async () => {
      const t = await newTask();
      const r = await send(reviewHook(t.iid, 'dev-dora', 'unreviewed', 'requested_changes'));
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const [start] = startsOf(t.id);
      assert.ok(start, 'the agent is resumed');
      assert.ok(
        start.prompt.startsWith(
          `A reviewer, "dev-dora", requested changes on merge request ${GL_PROJECT}!${t.iid} at commit ${t.head}.`,
        ),
        start.prompt.split('\n')[0],
      );
    });

    for (const [who, level] of [
      ['stranger', 'a non-member'],
      ['rita-reporter', 'a Reporter'],
      ['bea-blocked', 'a blocked Maintainer'],
      ['ava-awaiting', 'a Maintainer whose membership awaits approval'],
    ] as const) {
      test(`F1: "Request changes" from ${level} is refused for want of standing and resumes nothing`, async () => {
        const t = await newTask();
        const r = await send(reviewHook(t.iid, who, 'unreviewed', 'requested_changes'));
        assert.equal(r.status, 202, JSON.stringify(r.body));
        assert.deepEqual(await storedKind(r.key), ['review.submitted']);
        const rows = await decisionsOf(r.key);
        assert.ok(!rows.some((d) => d.outcome === 'claimed' || d.outcome === 'dispatched'), JSON.stringify(rows));
        const refused = rows.find((d) => d.outcome === 'refused');
        assert.equal(refused?.reason, 'author_without_standing', JSON.stringify(rows));
        assert.match(refused!.detail ?? '', new RegExp(`changes_requested by ${who}`));
        await h.nextTick();
        assert.equal(startsOf(t.id).length, 0, 'the agent is not resumed');
        const v = await view(t.id);
        assert.equal(v.rejections.length, 0);
        assert.equal(v.attempts.length, 0);
      });
    }

    /** The next two reads of `login`'s access level are refused by GitLab (its users lookup answers 403). */
    const standingUnreadable = (login: string) =>
      h.fake.failNext(new RegExp(`^GET /api/v4/users\\?username=${login}(&|$)`), [403, 403]);
    const pollRefusals = async (rejectionId: number) =>
      (
        await h.app.db.kysely
          .selectFrom('decisions')
          .select(['reason'])
          .where('identity', '=', `poll:rejection:${rejectionId}`)
          .orderBy('id')
          .execute()
      ).map((d) => d.reason);

    test('F1/E2: while GitLab cannot say a Developer\'s access level, their "Request changes" is kept and refused `standing_unreadable`; the next poll asks again and resumes the agent once', async () => {
      h.fake.addMember(GL_PROJECT, 'dev-erin', ACCESS.developer);
      const t = await newTask();
      standingUnreadable('dev-erin');
      const r = await send(reviewHook(t.iid, 'dev-erin', 'unreviewed', 'requested_changes'));
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const rows = await decisionsOf(r.key);
      assert.ok(!rows.some((d) => d.outcome === 'claimed' || d.outcome === 'dispatched'), JSON.stringify(rows));
      const refused = rows.find((d) => d.outcome === 'refused');
      assert.equal(refused?.reason, 'standing_unreadable', JSON.stringify(rows));
      assert.match(refused!.detail ?? '', /dev-erin: the access level could not be read/);
      assert.equal(startsOf(t.id).length, 0, 'no standing is granted while it cannot be read');
      const kept = await view(t.id);
      assert.equal(kept.rejections.length, 1, 'the review is kept, not lost');
      assert.equal(kept.attempts.length, 0);
      const humanAt = async () =>
        (
          await h.app.db.kysely
            .selectFrom('tasks')
            .select(['human_at'])
            .where('id', '=', t.id)
            .executeTakeFirstOrThrow()
        ).human_at;
      assert.equal(await humanAt(), null, 'unknown standing is not a person acting (K9)');

      await h.nextTick();
      const row = await h.app.db.kysely
        .selectFrom('rejections')
        .select(['created_at'])
        .where('id', '=', kept.rejections[0].id)
        .executeTakeFirstOrThrow();
      assert.equal(
        await humanAt(),
        row.created_at,
        'once read, the review counts as a person acting, when it was made',
      );
      const starts = startsOf(t.id);
      assert.equal(starts.length, 1, 'the poll read the access level again and resumed the agent');
      assert.match(starts[0]!.prompt, /^A reviewer, "dev-erin", requested changes/);
      const v = await view(t.id);
      assert.deepEqual(
        v.attempts.map((a: { coordinate: string }) => a.coordinate),
        [`review:${kept.rejections[0].id}`],
      );
      await h.nextTick();
      assert.equal(startsOf(t.id).length, 1, 'once');
    });

    test('F1/E2: a non-member\'s "Request changes" kept while GitLab could not say their access level is refused once it can, and resumes nothing', async () => {
      h.fake.addToken('outsider'); // a GitLab user, no member of the project
      const t = await newTask();
      standingUnreadable('outsider');
      const r = await send(reviewHook(t.iid, 'outsider', 'unreviewed', 'requested_changes'));
      assert.equal((await decisionsOf(r.key)).find((d) => d.outcome === 'refused')?.reason, 'standing_unreadable');
      const [row] = (await view(t.id)).rejections;
      assert.ok(row, 'kept');
      await h.nextTick();
      await h.nextTick();
      assert.equal(startsOf(t.id).length, 0, 'the agent is not resumed');
      assert.equal((await view(t.id)).attempts.length, 0);
      const reasons = await pollRefusals(row.id);
      assert.ok(reasons.length > 0, 'the poll offered it again');
      assert.ok(
        reasons.every((x) => x === 'author_without_standing'),
        JSON.stringify(reasons),
      );
    });

    test('F1: a reviewer going to `approved` is no rejection and resumes nothing', async () => {
      const t = await newTask();
      const r = await send(reviewHook(t.iid, 'dev-dora', 'unreviewed', 'approved'));
      assert.equal(r.status, 202, JSON.stringify(r.body));
      assert.deepEqual(await storedKind(r.key), ['pr.changed'], 'not taken for a review');
      const rows = await decisionsOf(r.key);
      assert.ok(!rows.some((d) => d.outcome === 'claimed' || d.outcome === 'dispatched'), JSON.stringify(rows));
      await h.nextTick();
      assert.equal(startsOf(t.id).length, 0);
      assert.equal((await view(t.id)).rejections.length, 0);
    });

    test('F1: a merge-request update that changes labels as well as the reviewers is a merge-request change, not a review', async () => {
      const t = await newTask();
      const label = { id: 205, title: 'Platform', color: '#123123', project_id: h.projectId, type: 'ProjectLabel' };
      const body = reviewHook(t.iid, 'dev-dora', 'unreviewed', 'requested_changes', {
        labels: { previous: [], current: [label] },
      });
      body.labels = [label];
      body.object_attributes.labels = [label];
      const r = await send(body);
      assert.equal(r.status, 202, JSON.stringify(r.body));
      assert.deepEqual(await storedKind(r.key), ['pr.changed']);
      const rows = await decisionsOf(r.key);
      assert.ok(!rows.some((d) => d.outcome === 'claimed' || d.outcome === 'dispatched'), JSON.stringify(rows));
      await h.nextTick();
      assert.equal(startsOf(t.id).length, 0, 'no review round');
      assert.equal((await view(t.id)).rejections.length, 0);
    });
  });
}
