// The spend benchmark's fixloop driver: one lifecycle through fixloop's real pipeline. createFixloop
// on a fresh SQLite database (test/support's harness), the fake GitHub, a fake clock, the poll ticked
// by hand; each world step's deliveries are posted signed to the webhook; a scripted agent runner
// acts for each run fixloop starts — it applies the lifecycle's push to the fake (new head, compare
// diffs), reports its outcome over the run API with its run token (or dies without one) and exits.
// Between steps, and after the last one until nothing moves, the clock advances one poll interval
// and the poll ticks, so progress checks, retries, re-offers and the push guards all run. A re-run of
// failed jobs fixloop asks the fake GitHub for (rerun-failed-jobs) becomes the re-run's check runs
// and deliveries on the same commit, as the lifecycle scripts them. The pull request's base (`main`)
// has its own checks in the fake, for triage to read.
import { createHash } from 'node:crypto';
import { startGitHubHarness, type GitHubHarness } from '../test/support/github-harness.js';
import { RecordingRunner, SECRET } from '../test/support/harness.js';
import { post } from '../test/support/deliveries.js';
import { pullKey } from '../test/support/fake-github/state.js';
import type { Random, RunSpec } from '../src/app/ports.js';
import type { Lifecycle } from './spend-corpus.js';
import { SPEND_REPO_NAME, World, type Emitted, type EmittedCheckRun } from './spend-world.js';

/**
 * Fake time with no run started, after the last step, before the lifecycle is over: past the waits
 * fixloop has (a re-run's hold of 30 minutes, a matrix's settle time of 20, no CI for a head after 10).
 */
const QUIET_MS = 35 * 60_000;

export interface FixloopResult {
  budget: number;
  pollIntervalMs: number;
  runs: number;
  fixes: number;
  falseFixes: number;
  deliveries: number;
  attempts: number;
  /** Re-runs of failed jobs fixloop asked GitHub for. */
  reruns: number;
  /** The notice fixloop filed (why the loop stopped), if any. */
  stop: string | null;
  /** Refusal reasons of the decision log, counted. */
  refusals: Record<string, number>;
}

/** Run tokens from a counter: the same bytes every time. */
function countingRandom(): Random {
  let n = 0;
  return {
    token: (bytes) =>
      createHash('sha256').update(`spend-bench-${n++}`).digest().subarray(0, bytes).toString('base64url'),
  };
}

/**
 * The scripted agent: fixloop starts it (through the Runner port) and it acts when the driver lets
 * time pass — a run takes minutes, a burst of deliveries milliseconds — doing what the lifecycle says
 * for the head it was started for.
 */
class ScriptedAgentRunner extends RecordingRunner {
  private readonly pending: RunSpec[] = [];

  override async start(spec: RunSpec, cb: Parameters<RecordingRunner['start']>[1]): Promise<void> {
    await super.start(spec, cb);
    this.pending.push(spec);
  }

  /** Every started run acts, in start order; returns how many did. */
  async act(h: GitHubHarness, world: World): Promise<number> {
    let n = 0;
    for (let spec = this.pending.shift(); spec; spec = this.pending.shift()) {
      const from = world.head;
      const action = world.act(world.labelOf(spec.headSha));
      if (action.kind === 'push') {
        // GitHub's compare of the run's head and the push, and of every earlier head and the push.
        h.fake.setCompare(SPEND_REPO_NAME, world.sha(from), world.sha(action.to), action.files);
        for (const earlier of world.heads) {
          if (earlier !== from && earlier !== action.to)
            h.fake.setCompare(
              SPEND_REPO_NAME,
              world.sha(earlier),
              world.sha(action.to),
              action.sinceBase ?? action.files,
            );
        }
        h.fake.setHead(SPEND_REPO_NAME, world.lc.pr, world.sha(action.to));
      }
      if (action.kind !== 'crash') {
        const outcome = action.kind === 'push' ? 'action_taken' : 'non_actionable';
        const res = await fetch(`${h.url}/api/run/outcome`, {
          method: 'POST',
          headers: { authorization: `Bearer ${spec.runToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            outcome,
            reason: action.kind === 'push' ? `pushed ${action.to}` : 'nothing to change on this head',
          }),
        });
        if (res.status !== 200)
          throw new Error(`run ${spec.runId}: outcome refused (${res.status}): ${await res.text()}`);
      }
      this.finish(spec.runId, 'completed');
      await runEnded(h, spec.runId);
      await h.app.settle();
      n++;
    }
    return n;
  }
}

/** A check run GitHub holds for a commit from now on (its id is the Actions job id, in its workflow run). */
function addCheckRun(h: GitHubHarness, r: EmittedCheckRun): void {
  h.fake.addCheckRun(SPEND_REPO_NAME, r.sha, {
    id: r.id,
    name: r.name,
    status: 'completed',
    conclusion: r.conclusion,
    startedAt: r.startedAt,
    completedAt: r.completedAt,
    outputTitle: r.output ? 'Tests failed' : null,
    outputSummary: r.output,
    runId: r.runId,
  });
}

/** The runner's exit is written asynchronously: wait until the ledger shows the run ended. */
async function runEnded(h: GitHubHarness, runId: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const run = await h.app.ledger.getRun(runId);
    if (run && run.state !== 'running' && run.state !== 'queued') return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`run ${runId} never ended`);
}

/** The harness's one Work (test/support/harness.ts writeConfig), which a lifecycle's rules per check extend. */
const SPEND_WORK = {
  name: 'shop',
  account: 'acme',
  repositories: [
    { name: SPEND_REPO_NAME, role: 'data' },
    { name: 'acme/shop-site', role: 'website' },
  ],
};

export async function runFixloop(lc: Lifecycle, opts: { budget: number }): Promise<FixloopResult> {
  const runner = new ScriptedAgentRunner();
  const h = await startGitHubHarness('sqlite', {
    env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: String(opts.budget) },
    // Issue 36: the lifecycle's rules per check, on the one Work holding the corpus's repository.
    ...(lc.checks ? { configExtra: { works: [{ ...SPEND_WORK, checks: lc.checks }] } } : {}),
    runner,
    adapters: { random: countingRandom() },
  });
  try {
    const world = new World(lc, { now: () => h.clock.now() });
    h.fake.addPull(SPEND_REPO_NAME, lc.pr, {
      headSha: world.sha(lc.firstHead),
      headRef: world.branch,
      baseRef: 'main',
      baseSha: world.baseSha,
      author: 'fixloop-agent',
    });
    h.fake.setBranch(SPEND_REPO_NAME, 'main', world.baseSha);
    // The corpus's reviewer is a person who may steer the agent: write access (F1, decision 0042).
    h.fake.setCollaborator(SPEND_REPO_NAME, 'reviewer', 'write');
    for (const r of world.baseCheckRuns()) addCheckRun(h, r);
    const created = await h.api('POST', '/api/tasks', {
      repository: SPEND_REPO_NAME,
      pullRequest: lc.pr,
      branch: world.branch,
    });
    if (created.status !== 201) throw new Error(`task not created: ${JSON.stringify(created.body)}`);
    const taskId = created.body.id as number;
    // Issue 36: other agents' pull requests on the same base, each head failing what the first fails.
    for (let i = 1; i <= (lc.alsoHeld ?? 0); i++) {
      const head = world.sha(`held#${i}`);
      h.fake.addPull(SPEND_REPO_NAME, lc.pr + i, { headSha: head, headRef: `agent/held-${i}`, baseRef: 'main' });
      const failing = lc.world.find((s) => s.kind === 'ci' && s.head === lc.firstHead);
      for (const job of failing?.kind === 'ci' ? failing.jobs : [])
        h.fake.addCheckRun(SPEND_REPO_NAME, head, {
          name: job.name,
          status: 'completed',
          conclusion: job.conclusion,
          outputSummary: job.output ?? null,
        });
      const other = await h.api('POST', '/api/tasks', {
        repository: SPEND_REPO_NAME,
        pullRequest: lc.pr + i,
        branch: `agent/held-${i}`,
      });
      if (other.status !== 201) throw new Error(`task not created: ${JSON.stringify(other.body)}`);
    }
    const interval = h.app.config.pollIntervalMs;
    let deliveries = 0;

    /** Re-runs fixloop asked for since the last look become the world's next steps. */
    let rerunsSeen = 0;
    let updatesSeen = 0;
    const takeReruns = (): void => {
      for (const r of h.fake.state.reruns.slice(rerunsSeen)) {
        if (!world.rerun(r.runId)) throw new Error(`re-run of an unknown workflow run ${r.runId}`);
      }
      rerunsSeen = h.fake.state.reruns.length;
      // Issue 36: a branch update fixloop asked for is the lifecycle's merge commit, with what follows it.
      for (const u of h.fake.state.branchUpdates.slice(updatesSeen)) {
        const update = world.branchUpdated(u.from);
        if (!update) throw new Error(`an update of ${u.from}, which the lifecycle does not expect`);
        h.fake.setHead(SPEND_REPO_NAME, lc.pr, world.sha(update.to));
      }
      updatesSeen = h.fake.state.branchUpdates.length;
    };
    const apply = async (e: Emitted): Promise<void> => {
      if (e.moved) h.fake.setHead(SPEND_REPO_NAME, lc.pr, world.sha(e.moved));
      if (e.mergeState) h.fake.state.pulls[pullKey(SPEND_REPO_NAME, lc.pr)]!.mergeableState = e.mergeState;
      if (e.base) {
        // main moves on: the pull request's base is its new head, with its own checks.
        h.fake.state.pulls[pullKey(SPEND_REPO_NAME, lc.pr)]!.baseSha = e.base.sha;
        h.fake.setBranch(SPEND_REPO_NAME, 'main', e.base.sha);
        for (const r of e.base.checkRuns) addCheckRun(h, r);
      }
      if (e.review)
        h.fake.addReview(SPEND_REPO_NAME, lc.pr, {
          id: e.review.id,
          state: e.review.state,
          body: e.review.body,
          author: 'reviewer',
          authorType: 'User',
          commitId: e.review.sha,
          submittedAt: e.review.submittedAt,
        });
      let burst = 0;
      for (const item of e.items) {
        if (item.burst > burst) {
          // The next jobs of the matrix finish a poll interval later; the poll reads what is in meanwhile.
          await h.app.settle();
          h.clock.advance(interval);
          await h.tick();
          burst = item.burst;
        }
        if (item.checkRun) addCheckRun(h, item.checkRun);
        const res = await post(h.url, item.delivery, SECRET);
        if (res.status >= 300)
          throw new Error(`delivery ${item.delivery.id} answered ${res.status}: ${JSON.stringify(res.body)}`);
        deliveries++;
      }
      await h.app.settle();
      takeReruns();
    };
    /** One poll interval passes: the clock moves, the poll ticks, the runs it started act. */
    const interval1 = async (): Promise<number> => {
      h.clock.advance(interval);
      await h.tick();
      takeReruns();
      const acted = await runner.act(h, world);
      takeReruns();
      return acted;
    };

    for (;;) {
      const step = world.next();
      if (step) {
        h.clock.advance(30_000);
        await apply(world.emit(step));
        await runner.act(h, world);
        takeReruns();
        await interval1();
        continue;
      }
      let quietMs = 0;
      while (!world.pending && quietMs < QUIET_MS) quietMs = (await interval1()) > 0 ? 0 : quietMs + interval;
      if (!world.pending) break;
    }

    const notice = ((await h.api('GET', '/api/inbox')).body.notices as Array<{ taskId: number; reason: string }>).find(
      (n) => n.taskId === taskId,
    );
    const view = (await h.api('GET', `/api/tasks/${taskId}`)).body;
    const decisions = (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=1000`)).body.decisions as Array<{
      outcome: string;
      reason: string | null;
    }>;
    // SPEND_TRACE=1 prints fixloop's decision log per lifecycle (for finding where a run went).
    if (process.env.SPEND_TRACE)
      for (const d of [...decisions].reverse())
        process.stderr.write(`${lc.id} b${opts.budget}: ${JSON.stringify(d)}\n`);
    const refusals: Record<string, number> = {};
    for (const d of decisions)
      if (d.outcome === 'refused' && d.reason) refusals[d.reason] = (refusals[d.reason] ?? 0) + 1;
    // Issue 36: where other pull requests were held too, what the base notice told (one round, all of them).
    const reds = lc.alsoHeld ? await h.app.ledger.openBaseReds(10) : [];
    const told = reds.length
      ? `base notice ×${reds.length} (${reds.reduce((n, r) => n + r.pullRequests.length, 0)} pull requests held)`
      : null;
    const stop = notice?.reason ?? told;
    return {
      budget: opts.budget,
      pollIntervalMs: interval,
      runs: runner.starts.length,
      fixes: world.tally.fixes,
      // A green reached by a forbidden change that fixloop handed to a person is not a fix it claimed.
      falseFixes: stop === 'forbidden_change' ? 0 : world.tally.falseFixes,
      deliveries,
      attempts: (view.attempts as unknown[]).length,
      reruns: world.tally.reruns,
      stop,
      refusals,
    };
  } finally {
    await h.close();
  }
}
