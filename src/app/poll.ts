// The poll (SPEC E1–E4, B1, B2, B4): the safety net for lost or refused deliveries, and the whole
// ingress of a poll-only installation. Each tick walks the open pull requests of open Tasks, reads
// the head and every check of it, writes ciHeadSha/ciState through the same compare-and-sets as the
// webhook (passing only here), and re-offers a red head to the same evaluator — safe, because the
// claim on the head refuses a commit already resumed for. One replica polls a PR per tick (lease).
// At scale (N3, decision 0031): due Tasks are claimed in slices by that lease, so replicas split
// them; each slice is glanced at in one GraphQL query and only pull requests that show something
// new, or whose Task waits on a read, are read in full, a few at a time; the hand-off's writes go
// to their own queue; and a tick spends no more of the rate limit than is left to spread.
import { greenGate, type GateResult } from '../core/green-gate.js';
import { ciBillableMinutes } from '../core/cost-ceiling.js';
import { verdictOfConclusion, verdictOfStatusState } from '../core/verdict.js';
import { boundCheckName } from '../core/bounded-text.js';
import type { CheckResult } from '../core/neutral-events.js';
import type { Task, Work } from '../core/types.js';
import type { Evaluator } from './evaluate.js';
import type {
  CheckRunInfo,
  CommitStatusInfo,
  ProviderPort,
  PullRequestInfo,
  PullRequestReading,
} from './provider-port.js';
import type { Clock, Logger } from './ports.js';
import type { Ledger } from './ledger-port.js';
import { mirrorSkipLabel } from './skip-label.js';
import { pollDepth, pollSignature, type Glance } from '../core/poll-depth.js';
import { tickBudget, tightest, type TickBudget } from '../core/poll-budget.js';
import type { ClaimedPoll } from './poll-state-port.js';
import { createWriteQueue, type WriteQueue } from './write-queue.js';

/** The poll leases a Task, moves its head and CI state by the same compare-and-sets as the webhook (E1, B1, B2). */
export type PollLedger = Pick<
  Ledger,
  | 'advanceHead'
  | 'setSkipLabel'
  | 'recordDecisions'
  | 'getTask'
  | 'claimDuePolls'
  | 'listAttempts'
  | 'markPolledSeen'
  | 'markPolledUnchanged'
  | 'pruneEtags'
  | 'markRed'
  | 'setCiStateForHead'
  | 'setGate'
  | 'updatePullRequest'
>;

/** The hand-off (handoff.ts) as the poll calls it: the Task as it is when its write job runs. */
export interface PollHandoff {
  sync(task: Task, pr: PullRequestInfo): Promise<void>;
}

/** The commit status publisher (commit-status.ts) as the poll calls it: a write queued, never awaited. */
export interface PollCommitStatus {
  schedule(taskId: number, headSha: string): void;
}

export interface PollDeps {
  ledger: PollLedger;
  host: ProviderPort;
  logger: Logger;
  clock: Clock;
  evaluator: Evaluator;
  works: readonly Work[];
  /**
   * The id of a repository's host in the registry (issue 34), the `source` of a red the poll reads;
   * absent (tests that do not look at it): 'unknown'.
   */
  hostIdOf?: (repository: string) => string;
  intervalMs: number;
  /** Given each polled Task once the tick's writes are in: its label and state comment (K5/K8). */
  handoff?: PollHandoff;
  /** P3: the polled head's `fixloop` status, scheduled on its own lane after the hand-off. */
  commitStatus?: PollCommitStatus;
  /**
   * K3/K4: judges the agent's push when the head moved after an attempt (src/app/push-guard.ts),
   * before the head's red is offered, so a stopped loop spends nothing on it. Must not throw.
   */
  pushGuard?: (task: Task, headSha: string) => Promise<unknown>;
  /** Issue 36: a head found passing goes back in the merge queue when its Work asks (requeue-after-fix.ts). */
  requeue?: (task: Task, greenHead: string) => Promise<void>;
  /** K6: record the billable CI minutes of a head. */
  ciMinutes?: (taskId: number, headSha: string, minutes: number) => Promise<void>;
  /** I3: progress of attempts awaiting it, and retries (progress-check.ts). */
  progress?: (task: Task, pr: PullRequestInfo, runs: CheckRunInfo[]) => Promise<void>;
  /** Told each tick's duration in seconds, failed ones too (metrics, N2). */
  observeTick?: (seconds: number) => void;
  /** N3: Tasks leased per claim (default 100, also the most pull requests per GraphQL query). */
  sliceSize?: number;
  /** N3: pull requests read in full at once (default 8: GitHub's secondary limits ask for few in flight). */
  concurrency?: number;
  /** N3: the share of each rate limit the poll leaves for everything else (default 0.2). */
  reserveFraction?: number;
  /** Told when a tick stopped short to stay within the rate limit (metrics). */
  observeDeferred?: () => void;
  /** Where the hand-off's writes wait (default: a queue of this poller's own). */
  writes?: WriteQueue;
  /** Conditional-request answers not used for this long are forgotten (default two days). */
  etagMaxAgeMs?: number;
  /** Issue 36 item 4: run once each tick after its Tasks (a red base's round closed once it heals). Must not throw. */
  afterTick?: () => Promise<unknown>;
}

export interface PollReport {
  polled: number;
  /** Of `polled`: the glance showed nothing new and nothing waited on a read. */
  unchanged: number;
  /** Due Tasks this replica did not claim: another one holds their lease (counted by claims, so 0 here). */
  leasedElsewhere: number;
  failed: number;
  reoffered: number;
  /** The tick stopped before every due Task was read, to stay within the rate limit. */
  deferred: boolean;
}

/**
 * Lets I/O in (a webhook waiting for its acknowledgement): the ledger's queries on SQLite resolve as
 * microtasks, so a slice walked without this would hold the event loop for all of its Tasks.
 */
const letIoIn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The stored gate already says this of this head (its reasons and failing checks included). */
function sameGate(stored: Task['gate'], headSha: string, gate: GateResult): boolean {
  if (stored === null || stored.headSha !== headSha) return false;
  const { headSha: _h, at: _a, ...rest } = stored;
  return JSON.stringify(rest) === JSON.stringify({ ...gate });
}

/** A passing Task with no notice is read again after this many intervals (a verdict that may still change). */
const PASSING_EVERY_INTERVALS = 10;

export function createPoller(deps: PollDeps) {
  const { ledger, host, logger } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<PollReport> | null = null;
  const sliceSize = deps.sliceSize ?? 100;
  const concurrency = deps.concurrency ?? 8;
  const writes = deps.writes ?? createWriteQueue({ clock: deps.clock, logger });

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
      : await host.requiredChecks(task.repository, pr.baseRef).catch(() => null);
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
    const reds: Array<{
      name: string;
      conclusion: string;
      at: string;
      output: string;
      url: string | null;
      runId?: number;
    }> = [];
    for (const r of runs) {
      if (r.status === 'completed' && verdictOfConclusion(r.conclusion) === 'red') {
        reds.push({
          runId: r.id,
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
      source: deps.hostIdOf?.(task.repository) ?? 'unknown',
      kind: 'ci.result',
      ciKind: 'run',
      // A1: the decision log's copy is bounded; a check run's id is kept, so triage can re-run its job (T2).
      identity: `poll:${task.repository}@${pr.headSha}:${first.runId !== undefined ? `run:${first.runId}:` : ''}${boundCheckName(first.name)}`,
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

  /** One Task read in full: from its bulk reading when there is one, else by (conditional) REST. */
  async function pollTask(
    task: Task,
    reading: PullRequestReading | undefined,
    signature: string | null,
    leaseUntil: string,
  ): Promise<'polled' | 'failed' | 'reoffered'> {
    const now = deps.clock.now();
    let pr: PullRequestInfo;
    try {
      pr = reading?.pr ?? (await host.getPullRequest(task.repository, task.pullRequest));
    } catch (err) {
      logger.warn({ err, taskId: task.id }, 'poll: pull request could not be read');
      return 'failed';
    }
    const seen = {
      baseRef: pr.baseRef,
      prState: pr.merged ? ('merged' as const) : pr.state === 'closed' ? ('closed' as const) : ('open' as const),
      branchState: pr.headRepository === null ? ('deleted' as const) : ('present' as const),
      isFork: pr.headRepository !== null && pr.headRepository !== task.repository,
      // Issue 33: the board shows the title and author (kept when a reader did not ask for them).
      title: pr.title ?? task.prTitle ?? null,
      author: pr.author ?? task.prAuthor ?? null,
    };
    // N3: written only when it changed — every write grows SQLite's log, whose checkpoints stall
    // the webhook's commits.
    if (
      seen.baseRef !== task.baseRef ||
      seen.prState !== task.prState ||
      seen.branchState !== task.branchState ||
      seen.isFork !== task.isFork ||
      seen.title !== (task.prTitle ?? null) ||
      seen.author !== (task.prAuthor ?? null)
    )
      await ledger.updatePullRequest(task.id, seen);
    await mirrorSkipLabel(ledger, (row) => ledger.recordDecisions([row]), task, pr.labels, 'poll');
    let outcome: 'polled' | 'reoffered' = 'polled';
    if (pr.state === 'open') {
      // B1: the same compare-and-set as the webhook; the poll's time is when it read the head.
      await ledger.advanceHead(task.id, pr.headSha, now.toISOString(), 'pending');
      const fresh = await ledger.getTask(task.id);
      if (fresh && fresh.ciHeadSha === pr.headSha) {
        await deps.pushGuard?.(fresh, pr.headSha);
        const [runs, statuses] = reading
          ? [reading.runs, reading.statuses]
          : await Promise.all([
              host.listCheckRuns(task.repository, pr.headSha),
              host.listStatuses(task.repository, pr.headSha),
            ]);
        const gate = await gateFor(fresh, pr, runs, statuses);
        // K6: the head's CI minutes, from its check runs' durations, count toward the cost ceiling.
        await deps.ciMinutes?.(task.id, pr.headSha, ciBillableMinutes(runs));
        // Written when the verdict for the head changed: `at` is when the gate first read it so.
        if (!sameGate(fresh.gate, pr.headSha, gate))
          await ledger.setGate(task.id, { headSha: pr.headSha, at: now.toISOString(), ...gate });
        if (gate.verdict === 'passing') {
          await ledger.setCiStateForHead(task.id, pr.headSha, 'passing');
          await deps.requeue?.(fresh, pr.headSha);
        } else if (gate.verdict === 'red') await ledger.markRed(task.id, pr.headSha);
        else await ledger.setCiStateForHead(task.id, pr.headSha, 'pending');
        // I3: outcomes waiting for progress, and retries of attempts that ended without one — before
        // the red is offered again (issue 35), so the attempt whose push made this head is acknowledged
        // first and the red of its fix is judged on this tick, not held as in flight until the next.
        await deps.progress?.(fresh, pr, runs);
        // Issue 36: a head that conflicts with its base, or is only behind it (app/gate/branch.ts). What
        // it started stands in for the red's offer on this tick: one attempt in flight, or a head about to move.
        const branch = await deps.evaluator.syncBranch?.(
          { identity: `poll:branch:${task.repository}#${pr.number}@${pr.headSha}`, outcome: 'refused' },
          task.id,
          pr.headSha,
          pr.mergeableState,
        );
        if (gate.verdict === 'red' && branch?.kind !== 'claimed') {
          const red = firstRed(fresh, pr, runs, statuses);
          // E1/E2: re-offer the red head; a refused-at-a-bad-moment red is retried here, once.
          // A head already claimed, or a stopped loop, is only a read: nothing to offer.
          const claimed = (await ledger.listAttempts(task.id)).some((a) => a.coordinate === pr.headSha);
          if (red && !claimed && fresh.noticeAt === null) {
            await deps.evaluator.evaluate({ eventId: null, deliveryId: null, event: red });
            outcome = 'reoffered';
          }
        }
      }
      // F1: a review rejection refused at a bad moment is offered again, like a red head.
      await deps.evaluator.reofferRejections(task.id);
    }
    await ledger.markPolledSeen(task.id, signature);
    // N3: the hand-off's writes wait on their own queue, never on this tick; the job reads the Task
    // as it is when it runs, and is dropped if this replica's lease on the pull request ran out.
    const { handoff, commitStatus } = deps;
    if (handoff || commitStatus) {
      writes.enqueue(task.id, leaseUntil, async () => {
        const after = await ledger.getTask(task.id);
        if (!after) return;
        await handoff?.sync(after, pr);
        // Its own lane (decision 0047): a status write never holds up another Task's hand-off.
        commitStatus?.schedule(after.id, pr.headSha);
      });
    }
    return outcome;
  }

  /** Runs `work` on every item, at most `limit` at a time. */
  async function bounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < items.length) {
        const item = items[next++]!;
        await letIoIn();
        await work(item);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  }

  /** A bulk read that failed is not fatal: the Tasks it was for are read one by one instead. */
  async function inBulk<V>(
    what: string,
    repository: string,
    numbers: number[],
    read: ((repository: string, numbers: number[]) => Promise<Map<number, V>>) | undefined,
  ): Promise<Map<number, V>> {
    if (!read || numbers.length === 0) return new Map();
    try {
      return await read.call(host, repository, numbers);
    } catch (err) {
      logger.warn({ err, repository, count: numbers.length }, `poll: ${what} failed; reading one by one`);
      return new Map();
    }
  }

  /** One claimed slice: glanced at in bulk per repository, then read in full where it needs to be. */
  async function pollSlice(slice: ClaimedPoll[], leaseUntil: string, report: PollReport): Promise<void> {
    const byRepository = new Map<string, ClaimedPoll[]>();
    for (const c of slice) byRepository.set(c.task.repository, [...(byRepository.get(c.task.repository) ?? []), c]);
    const toRead: Array<{ claimed: ClaimedPoll; glance: Glance | null; reading?: PullRequestReading }> = [];
    for (const [repository, claims] of byRepository) {
      const glances = await inBulk(
        'glancing at pull requests',
        repository,
        claims.map((c) => c.task.pullRequest),
        host.glancePullRequests,
      );
      const reads: typeof toRead = [];
      const unchanged: number[] = [];
      for (const claimed of claims) {
        const glance = glances.get(claimed.task.pullRequest) ?? null;
        const depth = pollDepth(claimed.task, claimed.signature, glance, claimed.movedSinceRead);
        if (depth.kind === 'read') {
          reads.push({ claimed, glance });
          continue;
        }
        // Nothing GitHub shows has moved and nothing waits on a read: marked polled, and a review
        // rejection refused at a bad moment is still offered again (F1), as on a full read.
        await letIoIn();
        try {
          await deps.evaluator.reofferRejections(claimed.task.id);
          unchanged.push(claimed.task.id);
        } catch (err) {
          report.failed++;
          logger.error({ err, taskId: claimed.task.id }, 'poll failed for a Task');
        }
      }
      // One write for all of them: a write per Task would grow SQLite's log, and its checkpoints
      // stall every other writer (webhook acknowledgements included) for a moment each.
      try {
        await ledger.markPolledUnchanged(unchanged);
        report.polled += unchanged.length;
        report.unchanged += unchanged.length;
      } catch (err) {
        report.failed += unchanged.length;
        logger.error({ err, repository }, 'poll: marking unchanged Tasks polled failed');
      }
      const readings = await inBulk(
        'reading pull requests',
        repository,
        reads.map((r) => r.claimed.task.pullRequest),
        host.readPullRequests,
      );
      for (const r of reads) {
        const reading = readings.get(r.claimed.task.pullRequest);
        toRead.push(reading ? { ...r, reading } : r);
      }
    }
    await bounded(toRead, concurrency, async ({ claimed, glance, reading }) => {
      try {
        const r = await pollTask(claimed.task, reading, glance ? pollSignature(glance) : null, leaseUntil);
        if (r === 'failed') report.failed++;
        else {
          report.polled++;
          if (r === 'reoffered') report.reoffered++;
        }
      } catch (err) {
        report.failed++;
        logger.error({ err, taskId: claimed.task.id }, 'poll failed for a Task');
      }
    });
  }

  /** E4, N3: what this tick may spend of each rate limit GitHub reported, the tightest deciding. */
  function budgetNow(nowMs: number): { budget: TickBudget; used: () => number; known: boolean } {
    const seen = host.rateLimits?.() ?? [];
    const reserve = deps.reserveFraction ?? 0.2;
    const budget = tightest(
      seen.map((l) =>
        tickBudget(
          { remaining: l.remaining, limit: l.limit, resetAtMs: Date.parse(l.resetAt) },
          nowMs,
          deps.intervalMs,
          reserve,
        ),
      ),
    );
    const before = new Map(seen.map((l) => [l.resource, l.remaining]));
    // What this tick used, as the remaining counts say (other users of the installation included).
    const used = () =>
      Math.max(
        0,
        ...(host.rateLimits?.() ?? []).map((l) => (before.has(l.resource) ? before.get(l.resource)! - l.remaining : 0)),
      );
    return { budget, used, known: seen.length > 0 };
  }

  async function tick(): Promise<PollReport> {
    const report: PollReport = {
      polled: 0,
      unchanged: 0,
      leasedElsewhere: 0,
      failed: 0,
      reoffered: 0,
      deferred: false,
    };
    const now = deps.clock.now().getTime();
    // E1 across replicas: each slice is leased by compare-and-set for most of an interval, so a
    // Task one replica claimed is skipped by the others this tick.
    const leaseUntil = new Date(now + Math.floor(deps.intervalMs * 0.9)).toISOString();
    const passingPolledBefore = new Date(now - PASSING_EVERY_INTERVALS * deps.intervalMs).toISOString();
    let { budget, used, known } = budgetNow(now);
    for (;;) {
      // The first answers of a process tell the limits: from then on this tick is bounded too.
      if (!known) ({ budget, used, known } = budgetNow(now));
      if (budget.kind === 'exhausted' || (budget.kind === 'bounded' && used() >= budget.spend)) {
        // Before the limit runs out, not after: the rest are due again next tick, oldest read first.
        report.deferred = true;
        deps.observeDeferred?.();
        logger.warn({ budget, polled: report.polled }, "poll: slowing down to stay within the host's rate limit");
        break;
      }
      const slice = await ledger.claimDuePolls({ limit: sliceSize, leaseUntil, passingPolledBefore });
      if (slice.length === 0) break;
      await pollSlice(slice, leaseUntil, report);
      if (slice.length < sliceSize) break;
    }
    await deps.afterTick?.().catch((err: unknown) => logger.warn({ err }, 'poll: the pass after the tick failed'));
    await ledger
      .pruneEtags(new Date(now - (deps.etagMaxAgeMs ?? 2 * 86_400_000)).toISOString())
      .catch((err: unknown) => logger.warn({ err }, 'poll: forgetting old conditional-request answers failed'));
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
    /** Resolves once the writes queued so far (the hand-off's) are done. */
    drain(): Promise<void> {
      return writes.drain();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      if (running) await running.catch(() => undefined);
      await writes.drain();
    },
  };
}

export type Poller = ReturnType<typeof createPoller>;
