// Issue 19, SPEC Q3 with C2, A3, A4, N1: a merge request pipeline of a twelve-job matrix, three of its
// jobs failed and retried (failing again), every hook GitLab sends for it delivered twice — collapses
// into one attempt, one resumed run and one agent start: in one process, and across two replicas
// sharing PostgreSQL, as on GitHub (test/scenarios/storm.test.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { DATABASE_KINDS, createTestDatabase } from '../../support/databases.js';
import { API_TOKEN } from '../../support/harness.js';
import {
  GL_HOOK_TOKENS,
  GL_PROJECT,
  gitlabWorks,
  postHook,
  sha,
  startGitLabHarness,
  startGitLabWorld,
  type GitLabWorld,
  type GitlabEventName,
} from '../../support/gitlab-harness.js';
import { commandAgentEnv, startServerProcess, until } from '../../support/server-process.js';
import { stormDecided } from '../../support/storm.js';

const HEAD = sha('c');
const MR = 12;
const AGENT = fileURLToPath(new URL('../../support/agent-counter.mjs', import.meta.url));

interface Hook {
  event: GitlabEventName;
  body: unknown;
  key: string;
}

/**
 * One red push of a twelve-job matrix as GitLab reports it, each hook taken from the fake's state
 * when it happens: the merge request opened on agent/fix (the Task is adopted), every job created,
 * pending, running and finished (jobs 0, 4, 8 failed), the pipeline pending, running and failed; then
 * the three failed jobs retried (new job ids: pending, running, failed again) and the pipeline running
 * and failed once more. Every hook is sent twice, the second time with the same Idempotency-Key, as
 * GitLab's redelivery does. The Merge Request hook is not part of the storm: it comes first.
 */
function pipelineStorm(w: GitLabWorld): { open: Hook; storm: Hook[]; distinct: number } {
  const hooks: Hook[] = [];
  const add = (event: GitlabEventName, body: unknown) =>
    hooks.push({ event, body: structuredClone(body), key: randomUUID() });
  w.openMergeRequest(MR, { headSha: HEAD, sourceBranch: 'agent/fix' });
  const open: Hook = {
    event: 'Merge Request Hook',
    body: w.mergeRequestHook(MR, { action: 'open' }),
    key: randomUUID(),
  };
  const jobs = Array.from({ length: 12 }, (_, i) => ({
    name: `test ${18 + (i % 3)} ${i + 1}/12`,
    stage: 'test',
    status: 'created' as const,
    trace: `shard ${i + 1} failed: expected 1 to be 2`,
  }));
  const pipeline = w.runPipeline(MR, HEAD, jobs);
  add('Pipeline Hook', w.pipelineHook(pipeline, 'pending'));
  for (const job of pipeline.jobs) add('Job Hook', w.jobHook(job));
  for (const status of ['pending', 'running'] as const)
    for (const job of pipeline.jobs) add('Job Hook', w.jobHook(w.finishJob(job, status)));
  add('Pipeline Hook', w.pipelineHook(pipeline, 'running'));
  const failed = pipeline.jobs.filter((_, i) => i % 4 === 0);
  for (const [i, job] of [...pipeline.jobs].entries())
    add('Job Hook', w.jobHook(w.finishJob(job, i % 4 === 0 ? 'failed' : 'success')));
  add('Pipeline Hook', w.pipelineHook(pipeline, 'failed'));
  // A person retries the three failed jobs: each a new job, and each fails again.
  w.clock.advance(60_000);
  const retried = failed.map((job) => w.retryJob(job, 'pending'));
  for (const job of retried) add('Job Hook', w.jobHook(job));
  add('Pipeline Hook', w.pipelineHook(pipeline, 'running'));
  for (const job of retried) add('Job Hook', w.jobHook(w.finishJob(job, 'running')));
  for (const job of retried) add('Job Hook', w.jobHook(w.finishJob(job, 'failed')));
  add('Pipeline Hook', w.pipelineHook(pipeline, 'failed'));
  return { open, storm: [...hooks, ...hooks.map((h) => ({ ...h }))], distinct: hooks.length };
}

for (const kind of DATABASE_KINDS) {
  describe(`GitLab pipeline storm (${kind})`, () => {
    test('Q3/C2: 124 concurrent hooks of one red pipeline (12 jobs, 3 retried, all redelivered) → exactly 1 attempt, 1 resumed run, 1 agent start', async () => {
      const h = await startGitLabHarness(kind);
      try {
        const { open, storm, distinct } = pipelineStorm(h);
        assert.equal(distinct, 62);
        assert.equal(storm.length, 124);
        const opened = await h.hook(open.event, open.body, { key: open.key });
        assert.equal(opened.status, 202, JSON.stringify(opened.body));
        await h.app.settle();
        const task = (await h.api('GET', `/api/tasks?repository=${GL_PROJECT}`)).body.tasks.find(
          (t: any) => t.pullRequest === MR,
        );
        assert.ok(task, 'the merge request on agent/fix was adopted as a Task');

        const answers = await Promise.all(storm.map((d) => h.hook(d.event, d.body, { key: d.key })));
        assert.ok(
          answers.every((a) => a.status === 200 || a.status === 202),
          JSON.stringify(answers.filter((a) => a.status >= 300)),
        );
        await h.app.settle();
        const view = (await h.api('GET', `/api/tasks/${task.id}`)).body;
        assert.equal(view.attempts.length, 1);
        assert.equal(view.attempts[0].coordinate, HEAD);
        assert.equal(view.runs.filter((r: any) => r.action === 'resume').length, 1);
        assert.equal(h.runner.starts.length, 1);
        assert.equal(h.runner.starts[0]!.pullRequest, MR);
        assert.equal(view.ciState, 'red');
        assert.equal(view.ciHeadSha, HEAD);
        // A3/A4: what has not finished is dropped at the edge, each time it comes (45 distinct hooks,
        // twice); each finished job (12 + 3 retries) and the failed pipeline are stored once; the rest
        // (17 redeliveries, and the pipeline failing again after the retries) are duplicates.
        const log = (await h.api('GET', '/api/deliveries?limit=1000')).body.decisions;
        const count = (o: string) =>
          log.filter((d: any) => d.outcome === o && d.deliveryId && d.deliveryId !== open.key).length;
        assert.equal(count('dropped'), 90);
        assert.equal(count('stored'), 16);
        assert.equal(count('duplicate'), 18);
      } finally {
        await h.close();
      }
    });
  });
}

describe('GitLab pipeline storm across two replicas (postgres)', () => {
  test('Q3/N1/C2: two server processes sharing PostgreSQL, the hooks split between them → the agent starts once', async () => {
    const world = await startGitLabWorld();
    const db = await createTestDatabase('postgres');
    const dir = mkdtempSync(join(tmpdir(), 'fixloop-gl-storm-'));
    const counter = join(dir, 'starts.jsonl');
    const env = commandAgentEnv({
      dir,
      databaseUrl: db.url,
      agentFile: AGENT,
      envAllow: ['COUNTER_FILE'],
      extra: {
        COUNTER_FILE: counter,
        GITLAB_WEBHOOK_SECRET: GL_HOOK_TOKENS.join(','),
        GITLAB_URL: world.fake.url,
        GITLAB_TOKEN: world.token,
      },
    });
    // The same server configuration, with the gitlab Work in place of the GitHub one.
    const config = JSON.parse(readFileSync(env.FIXLOOP_CONFIG!, 'utf8'));
    writeFileSync(env.FIXLOOP_CONFIG!, JSON.stringify({ ...config, works: gitlabWorks() }));
    const [a, b] = await Promise.all([startServerProcess(env, 'free'), startServerProcess(env, 'free')]);
    try {
      const auth = { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };
      const { open, storm } = pipelineStorm(world);
      assert.equal((await postHook(a.url, open.event, open.body, { key: open.key })).status, 202);
      let task: any;
      for (let i = 0; i < 50 && !task; i++) {
        const tasks = (await (
          await fetch(`${b.url}/api/tasks?repository=${GL_PROJECT}`, { headers: auth })
        ).json()) as any;
        task = tasks.tasks.find((t: any) => t.pullRequest === MR);
        if (!task) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(task, 'adopted');
      const answers = await Promise.all(
        storm.map((d, i) => postHook(i % 2 === 0 ? a.url : b.url, d.event, d.body, { key: d.key })),
      );
      assert.ok(
        answers.every((x) => x.status === 200 || x.status === 202),
        JSON.stringify(answers.filter((x) => x.status >= 300)),
      );
      // Wait for the agent to have run, then for both replicas to have decided on every delivery of the
      // storm: only then does "one attempt, one resume" mean that no second one can still come.
      await until(
        'the resume to complete and the agent to have run',
        async () => {
          const v = await (await fetch(`${b.url}/api/tasks/${task.id}`, { headers: auth })).json();
          return v.runs.some((r: any) => r.action === 'resume' && r.state === 'completed') && existsSync(counter);
        },
        30_000,
      );
      await stormDecided(
        b.url,
        auth,
        storm.map((d) => d.key),
      );
      const view = await (await fetch(`${a.url}/api/tasks/${task.id}`, { headers: auth })).json();
      assert.equal(view.attempts.length, 1);
      assert.equal(view.attempts[0].coordinate, HEAD);
      assert.equal(view.runs.filter((r: any) => r.action === 'resume').length, 1);
      const starts = readFileSync(counter, 'utf8').trim().split('\n');
      assert.equal(starts.length, 1, 'the agent started exactly once');
      // L3: GitLab's secrets are the service's, never the agent's.
      const seen: string[] = JSON.parse(starts[0]!).env;
      for (const secret of ['GITLAB_TOKEN', 'GITLAB_WEBHOOK_SECRET', 'DATABASE_URL', 'FIXLOOP_API_TOKEN'])
        assert.ok(!seen.includes(secret), `${secret} leaked`);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await db.drop();
      await world.fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
