// Issue 19, SPEC Q3 with B1, B5, D: on GitLab, which commit a CI result is about. The Merge Request
// hook's `last_commit` is the merge request's own head, and a push (an update with `oldrev`) moves the
// Task's head off the commit it replaced with no clock involved; a failed job of a commit the merge
// request has moved past is refused as superseded — the agent is not resumed for it and the head does
// not move back. Each refusal is proven twice: no agent start, and the decision log's exact reason.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import { GL_PROJECT, sha, startGitLabHarness, type GitLabHarness, type Job } from '../../support/gitlab-harness.js';

async function newTask(h: GitLabHarness, iid: number, head: string): Promise<number> {
  h.openMergeRequest(iid, { headSha: head });
  const created = await h.api('POST', '/api/tasks', {
    repository: GL_PROJECT,
    pullRequest: iid,
    branch: `agent/${iid}`,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  // The merge request's head as its own hook reports it.
  const r = await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'update' }));
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await h.app.settle();
  return created.body.id;
}

/** The agent pushes `to`: GitLab's Merge Request hook of the push names the head it replaced. */
async function push(h: GitLabHarness, iid: number, to: string): Promise<void> {
  const oldrev = h.push(iid, to);
  const r = await h.hook('Merge Request Hook', h.mergeRequestHook(iid, { action: 'update', oldrev }));
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await h.app.settle();
}

/** The Job hook of `job` (now finished as given); returns the event's identity. */
async function jobFinished(h: GitLabHarness, job: Job, status: 'failed' | 'success' = 'failed'): Promise<string> {
  const r = await h.hook('Job Hook', h.jobHook(h.finishJob(job, status)));
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await h.app.settle();
  return r.body.identity;
}

async function evaluationOf(
  h: GitLabHarness,
  identity: string,
  taskId: number,
): Promise<Array<[string, string | null]>> {
  const res = await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=1000`);
  return (res.body.decisions as any[])
    .filter((d) => d.identity === identity && d.outcome !== 'stored')
    .map((d): [string, string | null] => [d.outcome, d.reason]);
}

const view = async (h: GitLabHarness, id: number) => (await h.api('GET', `/api/tasks/${id}`)).body;
const startsOf = (h: GitLabHarness, taskId: number) => h.runner.starts.filter((s) => s.taskId === taskId);

for (const kind of DATABASE_KINDS) {
  describe(`GitLab head order (${kind})`, () => {
    let h: GitLabHarness;
    before(async () => {
      h = await startGitLabHarness(kind);
    });
    after(() => h.close());

    test('B1: a push (Merge Request hook with oldrev) moves the head to the new commit; a red job for it resumes the agent', async () => {
      const [a, b] = [sha('a'), sha('b')];
      const taskId = await newTask(h, 31, a);
      assert.equal((await view(h, taskId)).ciHeadSha, a);
      h.clock.advance(60_000);
      await push(h, 31, b);
      assert.equal((await view(h, taskId)).ciHeadSha, b);
      h.clock.advance(60_000);
      const [job] = h.runPipeline(31, b, [{ name: 'test', status: 'running' }]).jobs;
      const id = await jobFinished(h, job!);
      assert.deepEqual(await evaluationOf(h, id, taskId), [['claimed', null]]);
      assert.equal(startsOf(h, taskId).length, 1);
      assert.equal(startsOf(h, taskId)[0]!.headSha, b);
      h.runner.finish(startsOf(h, taskId)[0]!.runId);
      await h.app.settle();
    });

    test('B5/B1: a failed job of the replaced commit that finished before the push was seen (delivered late) is refused as superseded; the head stays', async () => {
      const [a, b] = [sha('c'), sha('d')];
      const taskId = await newTask(h, 32, a);
      const [job] = h.runPipeline(32, a, [{ name: 'test', status: 'running' }]).jobs;
      h.finishJob(job!, 'failed'); // finished now…
      h.clock.advance(60_000);
      await push(h, 32, b); // …and the push is seen a minute later, before the job's hook arrives
      const r = await h.hook('Job Hook', h.jobHook(job!));
      assert.equal(r.status, 202, JSON.stringify(r.body));
      await h.app.settle();
      assert.deepEqual(await evaluationOf(h, r.body.identity, taskId), [['refused', 'superseded_head']]);
      const v = await view(h, taskId);
      assert.equal(v.ciHeadSha, b, 'the head does not move back');
      assert.notEqual(v.ciState, 'red', 'the superseded red does not paint the head red');
      assert.equal(v.attempts.length, 0);
      assert.equal(startsOf(h, taskId).length, 0);
    });

    // B5 (decision 0034): GitLab's Job and Pipeline hooks name the merge request but never its head;
    // the gate reads the merge request's head from GitLab, so a job of a replaced commit is superseded
    // whenever it finishes.

    test('B5: a failed job of the replaced commit that finishes after the push (the old pipeline still ran) is refused as superseded; the head stays on the new commit', async () => {
      const [a, b] = [sha('e'), sha('f')];
      const taskId = await newTask(h, 33, a);
      const [job] = h.runPipeline(33, a, [{ name: 'test', status: 'running' }]).jobs;
      h.clock.advance(60_000);
      await push(h, 33, b);
      h.clock.advance(60_000);
      const id = await jobFinished(h, job!); // the old pipeline's job fails a minute after the push
      assert.deepEqual(await evaluationOf(h, id, taskId), [['refused', 'superseded_head']]);
      const v = await view(h, taskId);
      assert.equal(v.ciHeadSha, b, 'the head does not move back to the replaced commit');
      assert.equal(startsOf(h, taskId).length, 0, 'no resume for a commit the merge request moved past');
    });

    test('B5: a job of the replaced commit retried an hour later (new job id, later finish) is refused as superseded', async () => {
      const [a, b] = [sha('1'), sha('2')];
      const taskId = await newTask(h, 34, a);
      const [job] = h.runPipeline(34, a, [{ name: 'test', status: 'running' }]).jobs;
      await jobFinished(h, job!); // red on A while A is the head: the agent is resumed
      assert.equal(startsOf(h, taskId).length, 1);
      h.runner.finish(startsOf(h, taskId)[0]!.runId);
      await h.app.settle();
      h.clock.advance(60_000);
      await push(h, 34, b);
      h.clock.advance(3_600_000);
      const retried = h.retryJob(job!, 'failed');
      const r = await h.hook('Job Hook', h.jobHook(retried));
      assert.equal(r.status, 202, JSON.stringify(r.body));
      await h.app.settle();
      assert.deepEqual(await evaluationOf(h, r.body.identity, taskId), [['refused', 'superseded_head']]);
      const v = await view(h, taskId);
      assert.equal(v.ciHeadSha, b);
      assert.equal(v.attempts.length, 1);
      assert.equal(startsOf(h, taskId).length, 1);
    });

    test('B2: a green job for the head never sets ciState passing through the webhook', async () => {
      const a = sha('3');
      const taskId = await newTask(h, 35, a);
      h.clock.advance(60_000);
      const [job] = h.runPipeline(35, a, [{ name: 'test', status: 'running' }]).jobs;
      const id = await jobFinished(h, job!, 'success');
      assert.deepEqual(await evaluationOf(h, id, taskId), [['refused', 'result_green']]);
      assert.equal((await view(h, taskId)).ciState, 'pending');
    });

    test('D: a red job on a merged merge request resumes nothing', async () => {
      const a = sha('4');
      const taskId = await newTask(h, 36, a);
      const merged = h.mergeRequestHook(36, { action: 'merge' });
      merged.object_attributes.state = 'merged';
      assert.equal((await h.hook('Merge Request Hook', merged)).status, 202);
      await h.app.settle();
      h.clock.advance(60_000);
      const [job] = h.runPipeline(36, a, [{ name: 'test', status: 'running' }]).jobs;
      const id = await jobFinished(h, job!);
      assert.deepEqual(await evaluationOf(h, id, taskId), [['refused', 'pr_merged']]);
      assert.equal(startsOf(h, taskId).length, 0);
    });
  });
}
