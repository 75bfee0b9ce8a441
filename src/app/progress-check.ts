// Progress after an outcome (SPEC I1, I3): an attempt whose run said `action_taken` waits for
// provider-visible progress — a new head, a re-run check, a changed review, conflict or merge-queue
// state — for two poll intervals; with none it becomes retryable, like a run that ended without an
// outcome, and a retryable attempt is retried as a new attempt row from the same budget.
// From the head alone (a webhook moved it; webhook-only installs) see progress-from-head.ts.
import { detectProgress, type ProgressSnapshot } from '../core/progress.js';
import { nextAttemptState, progressDeadlinePassed } from '../core/attempt-state.js';
import type { Task } from '../core/types.js';
import type { AgentLedger } from './agent-port.js';
import type { Evaluator } from './evaluate.js';
import type { CheckRunInfo, ProviderPort, PullRequestInfo } from './provider-port.js';
import type { Clock, Logger } from './ports.js';
import { LOG_EVENTS } from '../core/events.js';

/** What progress is measured on, read from GitHub as the poll sees it. */
export async function snapshotOf(
  host: ProviderPort,
  task: Pick<Task, 'repository' | 'pullRequest'>,
  pr?: PullRequestInfo,
  runs?: CheckRunInfo[],
): Promise<ProgressSnapshot> {
  const pull = pr ?? (await host.getPullRequest(task.repository, task.pullRequest));
  const checks = runs ?? (await host.listCheckRuns(task.repository, pull.headSha));
  const reviews = await host.listReviews(task.repository, task.pullRequest).catch(() => []);
  return {
    headSha: pull.headSha,
    checks: checks.map((r) => ({ name: r.name, id: r.id, startedAt: r.startedAt })),
    reviewThreads: null,
    latestReviewId: reviews.reduce<number | null>((m, r) => (m === null || r.id > m ? r.id : m), null),
    mergeableState: pull.mergeableState,
    inMergeQueue: false,
  };
}

export function createProgressCheck(deps: {
  agent: AgentLedger;
  host: ProviderPort;
  clock: Clock;
  logger: Logger;
  intervalMs: number;
  evaluator: Evaluator;
}) {
  return async function checkProgress(task: Task, pr: PullRequestInfo, runs: CheckRunInfo[]): Promise<void> {
    const lives = await deps.agent.lives(task.id);
    const now = deps.clock.now().toISOString();
    for (const life of lives.filter((l) => l.state === 'awaiting_progress')) {
      let baseline: ProgressSnapshot | null = null;
      try {
        baseline = life.baseline ? (JSON.parse(life.baseline) as ProgressSnapshot) : null;
      } catch {
        baseline = null;
      }
      const seen = baseline
        ? detectProgress(baseline, await snapshotOf(deps.host, task, pr, runs))
        : pr.headSha !== life.headSha
          ? (['new_head'] as const)
          : [];
      const event =
        seen.length > 0
          ? ({ kind: 'progress_seen', progress: seen } as const)
          : life.actionTakenAt && progressDeadlinePassed(life.actionTakenAt, deps.intervalMs, now)
            ? ({ kind: 'deadline_passed' } as const)
            : null;
      if (!event) continue;
      const t = nextAttemptState(life.state, event);
      if (t.kind === 'move' && (await deps.agent.moveAttempt(life.attemptId, [life.state], t.to))) {
        deps.logger.info(
          { taskId: task.id, attemptId: life.attemptId, to: t.to, why: t.why },
          LOG_EVENTS.ATTEMPT_PROGRESS,
        );
      }
    }
    // Retry what is retryable and not retried yet, at most one at a time (K7 holds the rest).
    const fresh = await deps.agent.lives(task.id);
    const retried = new Set(fresh.map((l) => l.retryOf).filter((x): x is number => x !== null));
    // Only while the pull request is still at the attempt's head: once the agent pushed, the new
    // head's own verdict drives the loop, and a retry would pay twice for one failure.
    const next = fresh.find((l) => l.state === 'retryable' && !retried.has(l.attemptId) && l.headSha === pr.headSha);
    if (next) await deps.evaluator.offerRetry(task.id, next.attemptId);
  };
}
