// The poll (SPEC E1–E4, B1, B2, B4): the safety net for lost or refused deliveries, and the whole
// ingress of a poll-only installation. Each tick walks the open pull requests of open Tasks, reads
// the head and every check of it, writes ciHeadSha/ciState through the same compare-and-sets as the
// webhook (passing only here), and re-offers a red head to the same evaluator — safe, because the
// claim on the head refuses a commit already resumed for. One replica polls a PR per tick (lease).
import { greenGate, type GateResult } from '../core/green-gate.js';
import { ciBillableMinutes } from '../core/cost-ceiling.js';
import { verdictOfConclusion, verdictOfStatusState } from '../core/verdict.js';
import { boundCheckName } from '../core/bounded-text.js';
import type { CheckResult } from '../core/classify.js';
import type { Task, Work } from '../core/types.js';
import type { Evaluator } from './evaluate.js';
import type { CheckRunInfo, CommitStatusInfo, GitHubPort, PullRequestInfo } from './github-port.js';
import type { Clock, Logger } from './ports.js';
import type { Ledger } from './ledger-port.js';
import { mirrorSkipLabel } from './skip-label.js';

/** The poll leases a Task, moves its head and CI state by the same compare-and-sets as the webhook (E1, B1, B2). */
export type PollLedger = Pick<
  Ledger,
  | 'advanceHead'
  | 'setSkipLabel'
  | 'recordDecisions'
  | 'getTask'
  | 'leasePoll'
  | 'listAttempts'
  | 'listTasks'
  | 'markPolled'
  | 'markRed'
  | 'setCiStateForHead'
  | 'setGate'
  | 'updatePullRequest'
>;

export interface PollDeps {
  ledger: PollLedger;
  github: GitHubPort;
  logger: Logger;
  clock: Clock;
  evaluator: Evaluator;
  works: readonly Work[];
  intervalMs: number;
  /** Runs for each polled Task whose loop has stopped (the hand-off, K5/K8). */
  afterPoll?(task: Task, pr: PullRequestInfo): Promise<void>;
  /**
   * K3/K4: judges the agent's push when the head moved after an attempt (src/app/push-guard.ts),
   * before the head's red is offered, so a stopped loop spends nothing on it. Must not throw.
   */
  pushGuard?: (task: Task, headSha: string) => Promise<unknown>;
  /** K6: record the billable CI minutes of a head. */
  ciMinutes?: (taskId: number, headSha: string, minutes: number) => Promise<void>;
  /** I3: progress of attempts awaiting it, and retries (progress-check.ts). */
  progress?: (task: Task, pr: PullRequestInfo, runs: CheckRunInfo[]) => Promise<void>;
  /** Told each tick's duration in seconds, failed ones too (metrics, N2). */
  observeTick?: (seconds: number) => void;
}

export interface PollReport {
  polled: number;
  leasedElsewhere: number;
  failed: number;
  reoffered: number;
}

/** A Task is due when its verdict may have changed: not yet passing, or not read for a while. */
function isDue(task: Pick<Task, 'ciState' | 'polledAt' | 'noticeAt'>, now: Date, intervalMs: number): boolean {
  if (task.ciState !== 'passing' || task.noticeAt !== null) return true;
  return task.polledAt === null || now.getTime() - Date.parse(task.polledAt) >= 10 * intervalMs;
}

export function createPoller(deps: PollDeps) {
  const { ledger, github, logger } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<PollReport> | null = null;

  function repoConfig(repository: string) {
    for (const w of deps.works) {
      const r = w.repositories.find((x) => x.name.toLowerCase() === repository);
      if (r) return r;
    }
    return undefined;
  }

  async function gateFor(
    task: Task,
    pr: PullRequestInfo,
    runs: CheckRunInfo[],
    statuses: CommitStatusInfo[],
  ): Promise<GateResult> {
    const cfg = repoConfig(task.repository);
    const required = cfg?.requiredChecks
      ? [...cfg.requiredChecks]
      : await github.requiredChecks(task.repository, pr.baseRef).catch(() => null);
    return greenGate({
      checkRuns: runs,
      statuses,
      required,
      ...(cfg?.skipDeciders ? { deciders: cfg.skipDeciders } : {}),
    });
  }

  /** The first red result of the head, as the evaluator reads a webhook's (with the PR's own pointer). */
  function firstRed(
    task: Task,
    pr: PullRequestInfo,
    runs: CheckRunInfo[],
    statuses: CommitStatusInfo[],
  ): CheckResult | null {
    const reds: Array<{ name: string; conclusion: string; at: string; output: string; url: string | null }> = [];
    for (const r of runs) {
      if (r.status === 'completed' && verdictOfConclusion(r.conclusion) === 'red') {
        reds.push({
          name: r.name,
          conclusion: r.conclusion!,
          at: r.completedAt ?? r.startedAt ?? '',
          output: [r.outputTitle, r.outputSummary].filter(Boolean).join('\n\n'),
          url: r.detailsUrl,
        });
      }
    }
    for (const s of statuses) {
      if (verdictOfStatusState(s.state) === 'red')
        reds.push({
          name: s.context,
          conclusion: s.state,
          at: s.updatedAt ?? '',
          output: s.description ?? '',
          url: s.targetUrl,
        });
    }
    reds.sort((a, b) => a.at.localeCompare(b.at) || a.name.localeCompare(b.name));
    const first = reds[0];
    if (!first) return null;
    const completedAt = first.at ? new Date(first.at).toISOString() : deps.clock.now().toISOString();
    return {
      source: 'github',
      kind: 'github.check',
      ciKind: 'run',
      identity: `poll:${task.repository}@${pr.headSha}:${boundCheckName(first.name)}`, // A1: the decision log's copy is bounded
      repository: task.repository,
      sha: pr.headSha,
      name: first.name,
      conclusion: first.conclusion,
      verdict: 'red',
      completedAt,
      pointers: [{ number: pr.number, headSha: pr.headSha, fork: false }],
      fork: pr.headRepository === null || pr.headRepository !== task.repository,
      branch: pr.headRef,
      output: first.output,
      url: first.url,
    };
  }

  async function pollTask(task: Task): Promise<'polled' | 'leased' | 'failed' | 'reoffered'> {
    const now = deps.clock.now();
    // E1 across replicas: the lease is a compare-and-set; the loser skips this PR this tick.
    if (!(await ledger.leasePoll(task.id, new Date(now.getTime() + Math.floor(deps.intervalMs * 0.9)).toISOString())))
      return 'leased';
    let pr: PullRequestInfo;
    try {
      pr = await github.getPullRequest(task.repository, task.pullRequest);
    } catch (err) {
      logger.warn({ err, taskId: task.id }, 'poll: pull request could not be read');
      return 'failed';
    }
    await ledger.updatePullRequest(task.id, {
      prState: pr.merged ? 'merged' : pr.state === 'closed' ? 'closed' : 'open',
      branchState: pr.headRepository === null ? 'deleted' : 'present',
      isFork: pr.headRepository !== null && pr.headRepository !== task.repository,
    });
    await mirrorSkipLabel(ledger, (row) => ledger.recordDecisions([row]), task, pr.labels, 'poll');
    let outcome: 'polled' | 'reoffered' = 'polled';
    if (pr.state === 'open') {
      // B1: the same compare-and-set as the webhook; the poll's time is when it read the head.
      await ledger.advanceHead(task.id, pr.headSha, now.toISOString(), 'pending');
      const fresh = await ledger.getTask(task.id);
      if (fresh && fresh.ciHeadSha === pr.headSha) {
        await deps.pushGuard?.(fresh, pr.headSha);
        const [runs, statuses] = await Promise.all([
          github.listCheckRuns(task.repository, pr.headSha),
          github.listStatuses(task.repository, pr.headSha),
        ]);
        const gate = await gateFor(fresh, pr, runs, statuses);
        // K6: the head's CI minutes, from its check runs' durations, count toward the cost ceiling.
        await deps.ciMinutes?.(task.id, pr.headSha, ciBillableMinutes(runs));
        await ledger.setGate(task.id, { headSha: pr.headSha, at: now.toISOString(), ...gate });
        if (gate.verdict === 'passing') await ledger.setCiStateForHead(task.id, pr.headSha, 'passing');
        else if (gate.verdict === 'red') {
          await ledger.markRed(task.id, pr.headSha);
          const red = firstRed(fresh, pr, runs, statuses);
          // E1/E2: re-offer the red head; a refused-at-a-bad-moment red is retried here, once.
          // A head already claimed, or a stopped loop, is only a read: nothing to offer.
          const claimed = (await ledger.listAttempts(task.id)).some((a) => a.coordinate === pr.headSha);
          if (red && !claimed && fresh.noticeAt === null) {
            await deps.evaluator.evaluate({ eventId: null, deliveryId: null, event: red });
            outcome = 'reoffered';
          }
        } else await ledger.setCiStateForHead(task.id, pr.headSha, 'pending');
        // I3: outcomes waiting for progress, and retries of attempts that ended without one.
        await deps.progress?.(fresh, pr, runs);
      }
      // F1: a review rejection refused at a bad moment is offered again, like a red head.
      await deps.evaluator.reofferRejections(task.id);
    }
    await ledger.markPolled(task.id);
    const after = await ledger.getTask(task.id);
    if (after && deps.afterPoll) await deps.afterPoll(after, pr);
    return outcome;
  }

  async function tick(): Promise<PollReport> {
    const report: PollReport = { polled: 0, leasedElsewhere: 0, failed: 0, reoffered: 0 };
    const now = deps.clock.now();
    const tasks = (await ledger.listTasks({ state: 'open' })).filter(
      (t) => t.prState === 'open' && t.parkedAt === null && isDue(t, now, deps.intervalMs),
    );
    for (const task of tasks) {
      try {
        const r = await pollTask(task);
        if (r === 'leased') report.leasedElsewhere++;
        else if (r === 'failed') report.failed++;
        else {
          report.polled++;
          if (r === 'reoffered') report.reoffered++;
        }
      } catch (err) {
        report.failed++;
        logger.error({ err, taskId: task.id }, 'poll failed for a Task');
      }
    }
    return report;
  }

  return {
    tick(): Promise<PollReport> {
      // Never two ticks at once in one process: a slow GitHub stretches the interval instead.
      if (!running) {
        // Wall time, not deps.clock: a duration, which a test's fake clock would not move.
        const started = performance.now();
        running = tick().finally(() => {
          running = null;
          deps.observeTick?.((performance.now() - started) / 1000);
        });
      }
      return running;
    },
    start(): void {
      if (timer) return;
      timer = setInterval(
        () => void this.tick().catch((err) => logger.error({ err }, 'poll tick failed')),
        deps.intervalMs,
      );
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      if (running) await running.catch(() => undefined);
    },
  };
}

export type Poller = ReturnType<typeof createPoller>;
