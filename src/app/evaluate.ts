// Evaluate one stored event against the Task it is about: the gate of the fix loop.
// classify (done at ingest) → route and resolve the Task (A5, A6) → head order (B1, B2, B5) →
// refusals (D, G2) → triage (T1–T3) → unchanged failure over the head's whole matrix (C5, T5, T6) →
// budget (C1) → claim (C2, C3) → notice (G1) → dispatch.
// Every step ends in a decision-log row with its outcome and reason.
import type { CheckResult, CommentRang, PullRequestChange, ReviewSubmitted } from '../core/classify.js';
import { decideHead, decidePullRequestHead } from '../core/head-order.js';
import { refusalOf } from '../core/refusal.js';
import { budgetAfterClaim, budgetBeforeClaim } from '../core/budget.js';
import { evidenceOf, fingerprint } from '../core/fingerprint.js';
import { checkRunIdOf, headChecksOf, type HeadChecks } from '../core/head-checks.js';
import { triage } from '../core/triage.js';
import { DEFAULT_MATRIX_SETTLE_MINUTES, unchangedFailure, type HeadCheck } from '../core/unchanged-failure.js';
import { boundCheckName, boundRejectionBody } from '../core/bounded-text.js';
import { fileStopNotice, stopNoticeInput } from './stop-notice.js';
import { routeRefusalWords, routeRepository } from '../core/route.js';
import type { Refusal } from '../core/reasons.js';
import type { Attempt, Notice, Rejection, Task, Work } from '../core/types.js';
import type { RerunFallback, StopReason } from '../core/reasons.js';
import type { Logger } from './ports.js';
import type { DecisionInput, Ledger } from './ledger-port.js';
import type { DecisionWriter } from './decision-writer.js';
import type { RequestRerun } from './rerun.js';
import { verdictRefusal } from '../core/refusal.js';
import { doorbell, rejectionFromReview, DOORBELL_MAX_AGE_MS } from '../core/doorbell.js';
import {
  permissionNeeded,
  rulesOfWork,
  standingOf,
  type Author,
  type HostAnswer,
  type Standing,
  type StandingRules,
} from '../core/standing.js';
import { adoptPullRequest } from '../core/adoption.js';
import { inFlightVerdict } from '../core/in-flight.js';
import { wakeVerdict } from '../core/wake-caps.js';
import { costVerdict, expectedNextCost } from '../core/cost-ceiling.js';
import type { AgentLedger } from './agent-port.js';
import type { Dispatcher } from './dispatch.js';
import { LOG_EVENTS } from '../core/events.js';
import type { CommentCommand } from '../core/comment-command.js';
import { mirrorSkipLabel } from './skip-label.js';

/** T1: a red result as a base hold names it: the check and its run (a re-run is another), else its time. */
function baseHoldKey(r: CheckResult): string {
  const run = checkRunIdOf(r.identity);
  return run !== null ? `${r.name.trim()}#${run}` : `${r.name.trim()}@${r.completedAt ?? ''}`;
}

/** F1/F2: what could not be read when a host could not say whether a person has standing. */
const UNREADABLE = {
  github: 'the permission on the repository could not be read',
  gitlab: 'the access level could not be read',
} as const;

/** A rejection nobody answered for a week was handled by a person or abandoned (F2). */
const REJECTION_MAX_AGE_MS = DOORBELL_MAX_AGE_MS;
/** The newest stored CI deliveries of a head read back to judge it: a matrix and its retries fit many times over. */
const HEAD_EVENTS_MAX = 500;

// T2: the gate asks for re-runs through app/rerun.ts's port (optional: absent, the agent gets the failure).
export type { RerunOutcome, RerunRequest, RequestRerun } from './rerun.js';

/** T1: the base branch's head and the checks failing on it, as last read from GitHub. */
export interface BaseChecks {
  ref: string;
  failing: readonly string[];
}

export type LoopEvent = CheckResult | PullRequestChange | ReviewSubmitted | CommentRang;

/** A stored event waiting for evaluation, with the delivery that brought it (for the decision log). */
export interface StoredLoopEvent {
  /** null when the poll re-offers what it read from GitHub (no delivery was stored). */
  eventId: number | null;
  deliveryId: string | null;
  event: LoopEvent;
}

/**
 * The gate reads the Task, its runs, attempts and rejections, and writes only through the head's
 * compare-and-set, the claim and the notice: every write it makes is one the database arbitrates.
 */
export type EvaluateLedger = Pick<
  Ledger,
  | 'now'
  | 'setSkipLabel'
  | 'getTask'
  | 'findTaskByPullRequest'
  | 'findTaskWithClaim'
  | 'findTaskByBranch'
  | 'createTask'
  | 'markAdopted'
  | 'updatePullRequest'
  | 'advanceHead'
  | 'markRed'
  | 'readStopFlag'
  | 'latestRun'
  | 'listAttempts'
  | 'isClaimed'
  | 'claimAttempt'
  | 'consumeApproveOne'
  | 'settleOverBudget'
  | 'createRejection'
  | 'getRejection'
  | 'listRejections'
  | 'fileNotice'
  | 'getNotice'
  | 'headCheckEvents'
  | 'reopenStop'
  | 'holdOnBase'
  | 'heldOnBase'
>;

export interface EvaluateDeps {
  ledger: EvaluateLedger;
  logger: Logger;
  works: readonly Work[];
  maxAttempts: number;
  /** Hands a claimed attempt to the runner (dispatch.ts). */
  dispatcher: Pick<Dispatcher, 'dispatch'>;
  decisions: DecisionWriter;
  /** Attempt lifecycle, spend and the last time a person acted (I1, K6, K7, K9). */
  agent: AgentLedger;
  /** K9 caps (defaults: 5 wakes in 10 minutes, 20 since a person acted). */
  wakeCaps?: { perWindow?: number; windowMs?: number; sinceHuman?: number };
  /** K6: the Task's cost ceiling (null = none), the expected cost of an attempt before any was reported, the CI minute price. */
  cost?: { ceiling: number | null; expectedAttemptCost: number; ciMinutePrice: number };
  /** The push guard (K3, K4): true when it stopped the loop for the push that made this head. */
  judgePush?: (task: Task, headSha: string) => Promise<boolean>;
  /** Allow-listed reviewer bots (F1, F2), lower-case logins. */
  reviewBots?: readonly string[];
  /** fixloop's own GitHub login, which never rings a doorbell (F2); absent without GitHub access. */
  /** B5 where a CI delivery names no head (GitLab): the pull request's head as the host reports it now. */
  pullRequestHead?: (repository: string, number: number) => Promise<string | null>;
  /**
   * F1/F2 where a delivery carries no author association (GitLab): the author's standing with the
   * repository, read from the host (member access level as an association); null when unreadable.
   */
  associationOf?: (repository: string, login: string) => Promise<string | null>;
  /**
   * F1/F2 on GitHub (decision 0042): the person's role on the repository (none, read, triage, write,
   * maintain, admin), kept briefly by the adapter; rejects when it cannot be read. Absent: unreadable.
   */
  permissionOf?: (repository: string, login: string) => Promise<string>;
  /** fixloop's own login on the repository's host (F2). */
  selfLogin?: (repository?: string) => Promise<string | null>;
  /**
   * I3 without a poll: a head the webhook moved is progress for an attempt awaiting it
   * (progress-check.ts progressWithoutPoll). Absent where a poll reads progress from GitHub.
   */
  newHead?: (taskId: number, headSha: string) => Promise<unknown>;
  /** Test fault points around the claim (crash tests kill the process, race tests act there); production wiring passes nothing. */
  fault?(point: 'before_claim' | 'after_claim'): void | Promise<void>;
  /**
   * `/fixloop off|on|retry|status` from a person with standing (core/comment-command.ts), applied as
   * that person's action; resolves to null when done, else why it was not applied. Absent: refused.
   */
  command?(task: Task, command: CommentCommand, author: string): Promise<string | null>;
  /** T6: how long a new head's checks get to report before a failure still missing counts as changed (decision 0029). */
  matrixSettleMs?: number;
  /** T2: re-runs a head's failed jobs instead of an attempt (app/rerun.ts); absent: a transient failure goes to the agent. */
  requestRerun?: RequestRerun;
  /** T1: the pull request's base branch and what fails on its head; absent, or null, when not known. */
  baseChecks?(repository: string, pullRequest: number, baseRef: string | null): Promise<BaseChecks | null>;
}

export type EvaluationResult =
  | { kind: 'refused'; reason: Refusal; taskId: number | null }
  | { kind: 'recorded'; taskId: number | null }
  | { kind: 'claimed'; taskId: number; attemptId: number }
  | { kind: 'noticed'; taskId: number; reason: StopReason };

export function createEvaluator(deps: EvaluateDeps) {
  const { ledger } = deps;

  async function log(d: DecisionInput): Promise<void> {
    deps.decisions.write(d);
  }

  async function refuse(ctx: Ctx, reason: Refusal, detail?: string): Promise<EvaluationResult> {
    await log({ ...ctx.base, taskId: ctx.task?.id ?? null, outcome: 'refused', reason, detail: detail ?? null });
    deps.logger.info(
      { identity: ctx.base.identity, taskId: ctx.task?.id, reason, ...(detail ? { detail } : {}) },
      LOG_EVENTS.DISPATCH_DROPPED,
    );
    return { kind: 'refused', reason, taskId: ctx.task?.id ?? null };
  }

  async function fileNotice(
    ctx: Ctx & { task: Task },
    reason: StopReason,
    headSha: string | null,
    detail?: string,
  ): Promise<EvaluationResult> {
    return afterNotice(
      ctx,
      reason,
      await fileStopNotice(ledger, ctx.task, {
        maxAttempts: deps.maxAttempts,
        reason,
        headSha,
        detail: detail ?? null,
      }),
    );
  }

  /** What filing the notice came to: `noticed`, or, when someone else filed it first, a read. */
  async function afterNotice(
    ctx: Ctx & { task: Task },
    reason: StopReason,
    notice: Notice | null,
  ): Promise<EvaluationResult> {
    if (notice) {
      await log({ ...ctx.base, taskId: ctx.task.id, outcome: 'noticed', reason, detail: notice.message });
      deps.logger.warn({ taskId: ctx.task.id, reason }, LOG_EVENTS.CI_AUTOFIX_EXHAUSTED);
      return { kind: 'noticed', taskId: ctx.task.id, reason };
    }
    // Someone else filed it: this delivery is a read and nothing else (G2).
    return refuse(ctx, 'notice_filed');
  }

  interface Ctx {
    base: DecisionInput;
    task: Task | null;
  }

  /**
   * B5 on GitLab: a CI hook names its merge request but not its head; the merge request's own head,
   * read from the host now, is the pointer. Unreadable, the pointer stays the result's own commit and
   * the completion time orders it (the poll, which reads the head, corrects a wrong call).
   */
  async function withHostHeads(r: CheckResult): Promise<CheckResult> {
    const lookup = deps.pullRequestHead;
    if (!lookup || !r.pointers.some((p) => p.unconfirmed)) return r;
    const pointers = await Promise.all(
      r.pointers.map(async (p) => {
        if (!p.unconfirmed) return p;
        const headSha = await lookup(r.repository, p.number).catch(() => null);
        return headSha === null ? p : { number: p.number, headSha, fork: p.fork };
      }),
    );
    return { ...r, pointers };
  }

  /**
   * The Task a CI result points at, by pull request with whether its commit is claimed (C2), else by
   * branch (claim unknown). When the claim cannot be read with the Task, the Task is read alone, so
   * a failing attempt ledger is told against the Task it belongs to (C4).
   */
  async function taskOfResult(r: CheckResult): Promise<{ task: Task; claimed?: boolean } | null> {
    const numbers = r.pointers.map((p) => p.number);
    let found: { task: Task; claimed?: boolean } | null;
    try {
      found = await ledger.findTaskWithClaim(r.repository, numbers, r.sha);
    } catch {
      const task = await ledger.findTaskByPullRequest(r.repository, numbers);
      found = task && { task };
    }
    if (found) return found;
    const byBranch = r.branch ? await ledger.findTaskByBranch(r.repository, r.branch) : null;
    return byBranch && { task: byBranch };
  }

  async function evaluateCheck(ctx: Ctx, eventId: number | null, r: CheckResult): Promise<EvaluationResult> {
    const route = routeRepository(deps.works, r.repository);
    if (route.kind === 'refuse') return refuse(ctx, route.reason, routeRefusalWords(route, r.repository));

    const found = await taskOfResult(r);
    const task = found?.task ?? null;
    if (!task) return refuse(ctx, 'no_task');
    ctx.task = task;

    // B5, B1: which commit is this about, and may it move the head?
    const head = decideHead(await withHostHeads(r), task);
    if (head.kind === 'refuse') return refuse(ctx, head.reason, head.detail);
    if (head.advance) {
      const moved = await ledger.advanceHead(task.id, r.sha, head.seenAt, r.verdict === 'red' ? 'red' : 'pending');
      if (!moved) {
        const again = await ledger.getTask(task.id);
        if (!again || again.ciHeadSha !== r.sha)
          return refuse(ctx, 'superseded_head', 'another writer moved the head first');
      }
      await deps.newHead?.(task.id, r.sha); // I3: without a poll, a new head seen by webhook is progress
    }
    const current = await reopenedByApproval(ctx, task, r);
    // Only a completed failure is actionable: nothing more to read for any other verdict, unless the
    // judgement of the head's failures waited for this very result (T6, decision 0029).
    const notRed = verdictRefusal(r.verdict);
    if (notRed) {
      const waited = r.verdict === 'green' && !head.advance ? await redAwaitingMatrix(current, r) : null;
      if (!waited) return refuse(ctx, notRed);
      return judgeRed(ctx, waited.eventId, waited.result, current, false, false);
    }
    // B2: red only, never passing — and after the head CAS, so a concurrent green for the same
    // new head (which may have won the move) can never leave the Task looking not red.
    if (head.advance || current.ciState !== 'red') await ledger.markRed(current.id, r.sha);
    deps.logger.info({ taskId: current.id, sha: r.sha, check: boundCheckName(r.name) }, LOG_EVENTS.CI_CHECK_FAILED);
    return judgeRed(ctx, eventId, r, current, head.advance || current !== task, found?.claimed);
  }

  /**
   * T3: a stop that waited for a person to approve a run on this head is answered once a completed
   * result other than `action_required` arrives for that head: the run was approved and ran. The loop
   * opens a new stop round (no attempt granted past the budget), and the result is judged as any other.
   */
  async function reopenedByApproval(ctx: Ctx, task: Task, r: CheckResult): Promise<Task> {
    if (task.noticeAt === null || task.parkedAt !== null || r.conclusion === 'action_required') return task;
    if (task.ciHeadSha !== r.sha) return task;
    const notice = await ledger.getNotice(task.id);
    if (notice?.reason !== 'approval_required' || notice.headSha !== r.sha) return task;
    if (await ledger.reopenStop(task.id, task.stopRound)) {
      await log({
        ...ctx.base,
        taskId: task.id,
        outcome: 'reopened',
        reason: 'approval_given',
        detail: `${boundCheckName(r.name)} completed (${r.conclusion ?? 'no conclusion'}) on ${r.sha.slice(0, 12)}: the run was approved`,
      });
    }
    const fresh = (await ledger.getTask(task.id)) ?? task;
    ctx.task = fresh;
    return fresh;
  }

  /**
   * T6: a green result may be the one an undecided judgement waited for (a check of the last head
   * passing now, half a matrix fixed). When the head is red, not yet claimed and an earlier
   * head was answered, the head's newest red is judged again with everything stored for it.
   */
  async function redAwaitingMatrix(
    task: Task,
    r: CheckResult,
  ): Promise<{ eventId: number | null; result: CheckResult } | null> {
    if (task.ciHeadSha !== r.sha || task.ciState !== 'red' || task.noticeAt !== null) return null;
    const attempts = await ledger.listAttempts(task.id);
    if (attempts.some((a) => a.coordinate === r.sha)) return null;
    const last = attempts.filter((a) => a.source === 'gate').at(-1);
    if (!last || last.headSha === r.sha) return null;
    return headChecksOf(await ledger.headCheckEvents(r.repository, r.sha, HEAD_EVENTS_MAX)).newestRed;
  }

  /** D, then everything before the claim: a red result of the Task's head, judged. */
  async function judgeRed(
    ctx: Ctx,
    eventId: number | null,
    r: CheckResult,
    task: Task,
    moved: boolean,
    /** Whether the result's commit was claimed when the Task was read; undefined: not read yet. */
    claimed: boolean | undefined,
  ): Promise<EvaluationResult> {
    // When the head moved above, the gate decides on the Task as it is now, read again.
    const fresh = moved ? ((await ledger.getTask(task.id)) ?? task) : task;
    ctx.task = fresh;
    // C2: a head answered before is only read again (a storm's next job, a redelivery, the poll's
    // re-offer): the loser is told the coordinate is claimed, with nothing more read or judged. A filed
    // notice or a parked Task is still reported as such (G2), from the row in hand. A claim is never
    // taken back, so one seen with the Task still holds; one made since loses at the claim's index.
    if (fresh.noticeAt === null && !fresh.parkedAt && (claimed ?? (await ledger.isClaimed(fresh.id, r.sha))))
      return refuse(ctx, 'coordinate_claimed');
    // D: what refuses to resume. The stop flag fails closed when it cannot be read.
    let stopFlag: boolean | 'unreadable';
    try {
      stopFlag = await ledger.readStopFlag();
    } catch {
      stopFlag = 'unreadable';
    }
    const gate = refusalOf({
      verdict: r.verdict,
      fork: r.fork,
      task: fresh,
      latestRun: await ledger.latestRun(task.id),
      stopFlag,
    });
    if (gate.kind === 'refuse') return refuse(ctx, gate.reason);
    // K3/K4: the push that made this head is judged before anything is spent on it, here as well as
    // on the poll, so a red arriving by webhook cannot buy a run for a forbidden or repeated change.
    if (deps.judgePush && r.sha === fresh.ciHeadSha && (await deps.judgePush(fresh, r.sha)))
      return refuse(ctx, 'notice_filed', 'the push was stopped by a guard');

    return claimAndDispatch(ctx as Ctx & { task: Task }, {
      coordinate: r.sha,
      source: 'gate',
      headSha: r.sha,
      fingerprint: fingerprint([r.name], r.output),
      red: r,
      // A1/H2: the payload holds the full text once; the rejection keeps a bounded copy.
      rejection: { checkName: boundCheckName(r.name), body: boundRejectionBody(r.output), eventId },
    });
  }

  /** What triage and the comparison with the last head came to: a result already, or on to the claim. */
  type Judged =
    { kind: 'done'; result: EvaluationResult } | { kind: 'go'; reason: RerunFallback | null; detail: string | null };

  /**
   * T1–T3, then C5/K2/T5/T6: whether this red is the agent's to fix, and whether it is the last
   * head's failures all over again. Reads the head's stored deliveries, and those of the heads
   * earlier attempts answered (for flaky checks and the last head's failures), each once.
   */
  async function judgeFailure(ctx: Ctx & { task: Task }, red: CheckResult, attempts: Attempt[]): Promise<Judged> {
    const read = new Map<string, HeadChecks>();
    const headOf = async (sha: string): Promise<HeadChecks> => {
      let h = read.get(sha);
      if (!h) read.set(sha, (h = headChecksOf(await ledger.headCheckEvents(red.repository, sha, HEAD_EVENTS_MAX))));
      return h;
    };
    const answered = attempts.filter((a) => a.source === 'gate');
    const triaged = await triageFailure(ctx, red, answered, headOf);
    if (triaged.kind === 'done') return triaged;
    const compared = await compareWithLastHead(ctx, red, answered.at(-1), headOf);
    if (compared.kind === 'done') return compared;
    const detail = [triaged.detail, compared.detail].filter((d) => d !== null).join('; ');
    return { kind: 'go', reason: triaged.reason, detail: detail || null };
  }

  /** T1–T3: an approval gate, a check red on the base too, or a transient failure a re-run answers. */
  async function triageFailure(
    ctx: Ctx & { task: Task },
    red: CheckResult,
    answered: Attempt[],
    headOf: (sha: string) => Promise<HeadChecks>,
  ): Promise<Judged> {
    const task = ctx.task;
    const done = async (result: Promise<EvaluationResult>): Promise<Judged> => ({ kind: 'done', result: await result });
    const current = await headOf(red.sha);
    // A suite or workflow run only sums up its jobs: when the head's failing jobs are stored, each was
    // triaged on its own (a re-run asked, a base that fails too), and the sum must not undo that.
    if ((red.ciKind === 'suite' || red.ciKind === 'workflow') && current.checks.some((c) => c.verdict === 'red'))
      return done(refuse(ctx, 'summary_of_jobs', `${boundCheckName(red.name)} sums up the head's failing jobs`));
    const flaky = new Set(current.flaky);
    for (const sha of new Set(answered.map((a) => a.headSha))) {
      if (sha !== null && sha !== red.sha) for (const f of (await headOf(sha)).flaky) flaky.add(f);
    }
    // A base that cannot be read is not known: triage then goes on without it. The read is bounded
    // (a few seconds, then remembered as not known), so this Task's wait never holds up another's
    // evaluation behind it (base-checks.ts; decision 0047).
    const base = deps.baseChecks
      ? await deps.baseChecks(task.repository, task.pullRequest, task.baseRef).catch(() => null)
      : null;
    const verdict = triage({
      result: { name: red.name, conclusion: red.conclusion, output: red.output },
      flakyChecks: [...flaky],
      base,
      // T1: this very result was held before (re-offered, redelivered): still the base's.
      heldOnBase: (await ledger.heldOnBase(task.id, red.sha)).includes(baseHoldKey(red)) ? [red.name] : [],
    });
    const fallback = (reason: RerunFallback, detail: string): Judged => ({ kind: 'go', reason, detail });
    switch (verdict.kind) {
      case 'agent':
        return { kind: 'go', reason: null, detail: null };
      case 'approval_gate':
        return done(fileNotice(ctx, 'approval_required', red.sha, verdict.detail));
      case 'red_on_base':
        await ledger.holdOnBase(task.id, red.sha, baseHoldKey(red), base?.ref ?? task.baseRef ?? 'the base');
        return done(refuse(ctx, 'red_on_base', verdict.detail));
      case 'transient': {
        // T2: a re-run answers this for much less than a model run; when none can be had, the agent does.
        // A red only the poll saw has no stored deliveries: its own check run id is what can be re-run.
        const polled = checkRunIdOf(red.identity);
        const checkRunIds =
          current.redCheckRunIds.length > 0 ? current.redCheckRunIds : polled !== null ? [polled] : [];
        if (!deps.requestRerun || checkRunIds.length === 0)
          return fallback('rerun_unavailable', `${verdict.detail}; no re-run could be asked for`);
        const rerun = await deps.requestRerun({
          taskId: task.id,
          repository: task.repository,
          headSha: red.sha,
          checkRunIds,
          reason: verdict.detail,
        });
        switch (rerun.kind) {
          case 'requested':
            return done(refuse(ctx, 'rerun_requested', verdict.detail));
          case 'in_flight':
            return done(refuse(ctx, 'rerun_in_flight', verdict.detail));
          case 'budget_spent':
            return fallback('rerun_budget_spent', `${verdict.detail}; the head's re-run budget is spent`);
          case 'refused':
            return fallback(
              'rerun_refused',
              `${verdict.detail}; GitHub refused the re-run (${rerun.status}: ${rerun.message.slice(0, 200)})`,
            );
        }
      }
    }
  }

  /**
   * C5/K2/T5/T6: the same failures on a new commit mean the last fix changed nothing. A person's
   * approve-one is an explicit "try once more": the unchanged-failure stop yields to it.
   */
  async function compareWithLastHead(
    ctx: Ctx & { task: Task },
    red: CheckResult,
    last: Attempt | undefined,
    headOf: (sha: string) => Promise<HeadChecks>,
  ): Promise<Judged> {
    const task = ctx.task;
    if (!last || last.headSha === null || last.headSha === red.sha || task.approveOnePending)
      return { kind: 'go', reason: null, detail: null };
    const before = await previousHeadChecks(last, await headOf(last.headSha));
    const current = await headOf(red.sha);
    const now = [...current.checks];
    // The poll's red is not a stored delivery: it joins what was stored, unless that has it already.
    // A suite or workflow run sums up its jobs and is never one of the head's checks (head-checks.ts).
    if ((red.ciKind === 'run' || red.ciKind === 'status') && !now.some((c) => c.name === red.name.trim()))
      now.push({ name: red.name.trim(), verdict: 'red', evidence: evidenceOf(red.output) });
    const since = current.firstAt ?? task.ciHeadSeenAt ?? ledger.now();
    const settleMs = deps.matrixSettleMs ?? DEFAULT_MATRIX_SETTLE_MINUTES * 60_000;
    const settled = Date.parse(ledger.now()) - Date.parse(since) >= settleMs;
    const same = unchangedFailure({ previous: before, current: now, settled });
    switch (same.kind) {
      case 'unchanged':
        return { kind: 'done', result: await fileNotice(ctx, 'unchanged_failure', red.sha, same.detail) };
      case 'undecided':
        return { kind: 'done', result: await refuse(ctx, 'awaiting_matrix', same.detail) };
      case 'changed':
        return { kind: 'go', reason: null, detail: `${same.why}: ${same.detail}` };
    }
  }

  /**
   * The last answered head's failures: what was stored for it or, when nothing was (a head the poll
   * alone saw), the one failure the attempt answered, from its rejection row.
   */
  async function previousHeadChecks(last: Attempt, stored: HeadChecks): Promise<HeadCheck[]> {
    if (stored.checks.length > 0) return stored.checks;
    const row = last.rejectionId !== null ? await ledger.getRejection(last.rejectionId) : null;
    const name = row?.checkName?.trim();
    return row && name ? [{ name, verdict: 'red', evidence: evidenceOf(row.body) }] : [];
  }

  type GuardStop =
    { kind: 'stop'; reason: StopReason; detail: string } | { kind: 'refuse'; reason: Refusal; detail: string };

  async function guardsBeforeClaim(task: Task): Promise<GuardStop | null> {
    const lives = await deps.agent.lives(task.id);
    const inFlight = inFlightVerdict(lives.map((l) => ({ id: l.attemptId, state: l.state })));
    if (inFlight.kind === 'refuse') return { kind: 'refuse', reason: 'attempt_in_flight', detail: inFlight.detail };
    const wake = wakeVerdict({
      wakes: lives.map((l) => l.createdAt),
      now: ledger.now(),
      lastHumanAt: await deps.agent.humanAt(task.id),
      ...deps.wakeCaps,
    });
    if (wake.kind === 'stop') {
      // The window cap clears on its own: a refusal the poll retries; the cap since a person acted needs one.
      return wake.reason === 'wake_cap_window'
        ? { kind: 'refuse', reason: 'wake_cap_window', detail: wake.detail }
        : { kind: 'stop', reason: wake.reason, detail: wake.detail };
    }
    if (deps.cost && deps.cost.ceiling !== null) {
      const totals = await deps.agent.spendTotals(task.id);
      const spent = [
        { model: totals.model, sandbox: totals.sandbox, ciMinutes: totals.ciMinutes * deps.cost.ciMinutePrice },
      ];
      const expectedNext = expectedNextCost(await deps.agent.spendPerAttempt(task.id), deps.cost.expectedAttemptCost);
      const cost = costVerdict({ spent, expectedNext, ceiling: deps.cost.ceiling });
      if (cost.kind === 'stop') return { kind: 'stop', reason: cost.reason, detail: cost.detail };
    }
    return null;
  }

  async function claimAndDispatch(
    ctx: Ctx & { task: Task },
    c: {
      coordinate: string;
      retryOf?: number;
      source: 'gate' | 'review' | 'bot';
      headSha: string | null;
      fingerprint: string;
      /** The red result a gate attempt answers: triaged and compared with the last head first (T). */
      red?: CheckResult;
      rejection: { checkName: string | null; body: string; eventId: number | null } | { existingId: number };
    },
  ): Promise<EvaluationResult> {
    const task = ctx.task;
    try {
      // C2: a coordinate claimed before is only read again (a redelivery, a storm's next job, a red
      // re-offered by the poll): nothing else to decide, nothing to spend, no stop to file.
      const attempts = await ledger.listAttempts(task.id);
      if (attempts.some((a) => a.coordinate === c.coordinate)) return refuse(ctx, 'coordinate_claimed');
      const max = deps.maxAttempts + task.extraAttempts; // K5: approve-one grants one past the cap
      const budget = budgetBeforeClaim(attempts.length, max);
      if (budget.kind === 'refuse' && budget.reason === 'loop_off') return refuse(ctx, 'loop_off');
      // T, C5: triage and the last head's failures, before the budget's own stop, so a failure the
      // agent cannot fix, or one unchanged, is told as such rather than as a spent budget.
      const judged = c.red && c.retryOf === undefined ? await judgeFailure(ctx, c.red, attempts) : null;
      if (judged?.kind === 'done') return judged.result;
      if (budget.kind === 'refuse') return fileNotice(ctx, 'budget_spent', c.headSha);
      // K7, K9, K6: the guards that look at the Task's attempts and spend, before anything is claimed.
      const guard = await guardsBeforeClaim(task);
      if (guard)
        return guard.kind === 'refuse'
          ? refuse(ctx, guard.reason, guard.detail)
          : fileNotice(ctx, guard.reason, c.headSha, guard.detail);
      await deps.fault?.('before_claim');
      const claim = await ledger.claimAttempt({
        taskId: task.id,
        coordinate: c.coordinate,
        source: c.source,
        headSha: c.headSha,
        fingerprint: c.fingerprint,
        rejection: c.rejection,
      });
      if (claim.kind === 'taken') return refuse(ctx, 'coordinate_claimed');
      // K7 across replicas: the partial unique index refused a second attempt in flight.
      if (claim.kind === 'in_flight')
        return refuse(ctx, 'attempt_in_flight', 'another attempt of this pull request is in flight');
      if (c.retryOf !== undefined) await deps.agent.markRetry(claim.attempt.id, c.retryOf);
      await log({
        ...ctx.base,
        taskId: task.id,
        attemptId: claim.attempt.id,
        outcome: 'claimed',
        // T2: a transient failure no re-run could answer says why it reached the agent after all.
        reason: judged?.reason ?? null,
        detail: `coordinate ${c.coordinate}${judged?.detail ? `; ${judged.detail}` : ''}`,
      });
      await deps.fault?.('after_claim');
      // C3: the count re-read inside the claim decides; a claim past the budget keeps its row.
      if (task.approveOnePending) await ledger.consumeApproveOne(task.id);
      if (budgetAfterClaim(claim.attemptsCounted, max).kind === 'over_budget') {
        // The claim's compare-and-set and the notice, in one transaction. The compare-and-set fails
        // when a reconciliation pass found the claim first and settled it (and noticed) already.
        const notice = stopNoticeInput(task, {
          maxAttempts: deps.maxAttempts,
          reason: 'budget_spent',
          headSha: c.headSha,
        });
        const settled = await ledger.settleOverBudget(
          claim.attempt.id,
          'the claim pushed the Task past its budget',
          notice,
        );
        if (!settled.settled) return refuse(ctx, 'coordinate_claimed', 'the claim was settled by reconciliation first');
        await log({
          ...ctx.base,
          taskId: task.id,
          attemptId: claim.attempt.id,
          outcome: 'refused',
          reason: 'over_budget_after_claim',
        });
        return afterNotice(ctx, 'budget_spent', settled.notice);
      }
      await deps.dispatcher.dispatch(claim.attempt.id);
      return { kind: 'claimed', taskId: task.id, attemptId: claim.attempt.id };
    } catch (err) {
      // C4: a ledger that cannot be read or written dispatches nothing.
      deps.logger.error({ err, taskId: task.id }, 'ledger unavailable during evaluation');
      return refuse(ctx, 'ledger_unavailable', String((err as Error).message ?? err).slice(0, 300));
    }
  }

  async function evaluatePullRequest(ctx: Ctx, e: PullRequestChange): Promise<EvaluationResult> {
    const route = routeRepository(deps.works, e.repository);
    if (route.kind === 'refuse') return refuse(ctx, route.reason, routeRefusalWords(route, e.repository));
    let task = await ledger.findTaskByPullRequest(e.repository, [e.number]);
    if (!task) {
      // Issue 3 §9: a pull request opened on a matching branch or by a listed author becomes a Task.
      const rules = route.work.repositories.find((r) => r.name.toLowerCase() === e.repository)?.adopt;
      if (!rules || !['opened', 'reopened', 'ready_for_review'].includes(e.action) || e.prState !== 'open')
        return refuse(ctx, 'no_task');
      const verdict = adoptPullRequest(
        {
          repository: e.repository,
          number: e.number,
          headRef: e.branch,
          headRepository: e.headRepository,
          baseRepository: e.repository,
          author: e.author,
          draft: e.draft,
        },
        rules,
      );
      if (!verdict.adopt) return refuse(ctx, 'not_adopted', verdict.reason);
      const created = await ledger.createTask({
        work: route.work.name,
        repository: e.repository,
        pullRequest: e.number,
        branch: e.branch,
        resumeRef: null,
      });
      task = created.task;
      if (!('kind' in created)) {
        await ledger.markAdopted(task.id);
        await log({
          ...ctx.base,
          taskId: task.id,
          outcome: 'stored',
          reason: 'adopted',
          detail: `${e.repository}#${e.number} on ${e.branch}`,
        });
      }
    }
    ctx.task = task;
    await ledger.updatePullRequest(task.id, { prState: e.prState, isFork: e.fork, baseRef: e.baseRef });
    await mirrorSkipLabel(ledger, (row) => log({ ...ctx.base, ...row }), task, e.labels, 'webhook');
    // B1, B5: the pull request's own head is the truest pointer there is; a push moves the head off
    // the commit it replaced whatever the clock says, anything else by the clock (decision 0019).
    const head = decidePullRequestHead(e, task);
    if (head.kind === 'advance' && (await ledger.advanceHead(task.id, e.headSha, head.seenAt, 'pending', head.move)))
      await deps.newHead?.(task.id, e.headSha); // I3: without a poll, a new head seen by webhook is progress
    await log({
      ...ctx.base,
      taskId: task.id,
      outcome: 'stored',
      reason: 'pull_request_state',
      detail: `${e.action}: ${e.prState}${head.kind === 'refuse' ? `; head kept (${head.reason}: ${head.detail})` : ''}`,
    });
    return { kind: 'recorded', taskId: task.id };
  }

  async function evaluateReview(ctx: Ctx, eventId: number | null, e: ReviewSubmitted): Promise<EvaluationResult> {
    const route = routeRepository(deps.works, e.repository);
    if (route.kind === 'refuse') return refuse(ctx, route.reason, routeRefusalWords(route, e.repository));
    const task = await ledger.findTaskByPullRequest(e.repository, [e.number]);
    if (!task) return refuse(ctx, 'no_task');
    ctx.task = task;
    // F1: only authors with standing steer. A person the Work does not trust (by association, then by
    // their permission on the repository), or an account posing as an allow-listed bot, is recorded
    // with its reason; no row is written and nothing is woken.
    const { author, answer, standing, rules } = await judgeAuthor(route.work, e.repository, {
      login: e.author,
      type: e.authorType,
      association: e.authorAssociation,
    });
    const association = author.association;
    const by = `${e.state} by ${e.author ?? 'unknown'}`;
    // F1 with E2: the host could not say whether the reviewer has standing (GitLab's access level,
    // GitHub's permission). A change request is kept with its standing unknown, and every offer of it
    // asks again (storedRowRefusal), so an outage at the moment of the review neither grants standing
    // nor loses the review.
    const unknown = standing.kind === 'none' && standing.reason === 'standing_unreadable';
    if (
      standing.kind === 'none' &&
      (standing.reason === 'author_without_standing' || standing.reason === 'bot_lookalike')
    )
      return refuse(ctx, standing.reason, `${by} (${e.authorType ?? 'no type'}, ${whoSays(association, answer)})`);
    // A person requesting changes, or an allow-listed bot's finding; an approval, a plain comment,
    // fixloop's own review or an unknown bot records nothing and resumes nothing.
    const candidate = unknown
      ? e.state.toUpperCase() === 'CHANGES_REQUESTED'
        ? { source: 'review' as const }
        : null
      : rejectionFromReview(
          {
            id: e.reviewId,
            state: e.state,
            body: e.body,
            author: e.author,
            authorType: e.authorType,
            authorAssociation: association,
            submittedAt: e.submittedAt,
            commitId: e.headSha,
          },
          rules,
          answer,
        );
    if (!candidate) return refuse(ctx, 'not_a_rejection', by);
    // K9: a person spoke (one whose standing is still unknown counts once it is read: offerRejection).
    if (candidate.source === 'review' && !unknown) await deps.agent.markHuman(task.id, ledger.now());
    const rejection = await ledger.createRejection({
      taskId: task.id,
      source: candidate.source,
      headSha: e.headSha,
      checkName: null,
      body: e.body,
      eventId,
      author, // so every later wake re-checks the author's standing (poll re-offer, doorbell, retry)
    });
    return offerRejection(ctx as Ctx & { task: Task }, rejection);
  }

  /** F2: a comment is only a doorbell; the row it rings for is checked, never merely fetched. */
  async function evaluateComment(ctx: Ctx, e: CommentRang): Promise<EvaluationResult> {
    const route = routeRepository(deps.works, e.repository);
    if (route.kind === 'refuse') return refuse(ctx, route.reason, routeRefusalWords(route, e.repository));
    const task = await ledger.findTaskByPullRequest(e.repository, [e.number]);
    if (!task) return refuse(ctx, 'no_task');
    ctx.task = task;
    if (e.action !== 'created') return refuse(ctx, 'doorbell_no_row', `comment ${e.action}`);
    const { author, answer, standing, rules } = await judgeAuthor(route.work, e.repository, {
      login: e.author,
      type: e.authorType,
      association: e.authorAssociation,
    });
    const association = author.association;
    // K9: "a person acted" only for a person with standing; a stranger's comment never resets the cap.
    if (standing.kind === 'person') await deps.agent.markHuman(task.id, ledger.now());
    if (e.command !== null) {
      const what = `/fixloop ${e.command} by ${e.author ?? 'an unknown author'}`;
      // The host could not say who the author is: refused, and said so, so the person can ask again.
      if (standing.kind === 'none' && standing.reason === 'standing_unreadable')
        return refuse(ctx, 'standing_unreadable', `${what}: ${UNREADABLE[route.work.provider ?? 'github']}`);
      // Commands are a person's: a bot, even an allow-listed reviewer, steers only through findings.
      if (standing.kind !== 'person')
        return refuse(ctx, 'command_without_standing', `${what} (${whoSays(association, answer)})`);
      const refused = deps.command
        ? await deps.command(task, e.command, e.author ?? 'unknown')
        : 'comment commands are not available';
      if (refused !== null) return refuse(ctx, 'command_not_applied', `${what}: ${refused}`);
      return { kind: 'recorded', taskId: task.id };
    }
    const row = (await ledger.listRejections(task.id)).at(-1) ?? null;
    const consumed = row
      ? (await ledger.listAttempts(task.id)).some(
          (a) => a.coordinate === `review:${row.id}` || a.rejectionId === row.id,
        )
      : false;
    // The row's author is judged as they stand now: asked again, as the poll's re-offer does.
    const rowAuthor =
      standing.kind !== 'none' && row?.author ? await judgeAuthor(route.work, task.repository, row.author) : null;
    const verdict = doorbell({
      comment: {
        author: e.author,
        authorType: e.authorType,
        authorAssociation: association,
        answer,
        pullRequest: { repository: e.repository, number: e.number },
        createdAt: e.createdAt ?? ledger.now(),
      },
      row: row
        ? {
            source: row.source,
            author: rowAuthor?.author ?? row.author,
            authorAnswer: rowAuthor?.answer,
            pullRequest: { repository: task.repository, number: task.pullRequest },
            createdAt: row.createdAt,
            consumed,
          }
        : null,
      ...rules,
      now: ledger.now(),
    });
    if (!verdict.ring)
      return refuse(
        ctx,
        verdict.reason === 'standing_unreadable' ? 'standing_unreadable' : `doorbell_${verdict.reason}`,
      );
    return offerRejection(ctx as Ctx & { task: Task }, row!);
  }

  /**
   * F1/F2: an author's standing under the Work's rules, asking the host only what the rules need:
   * GitLab's member access level as the association (its hooks carry none), and GitHub's repository
   * permission for a person whose association passed the first filter (a stranger costs no call).
   * Both are kept briefly by the adapters; a read that fails is `unreadable`, never standing.
   */
  async function judgeAuthor(
    work: Work,
    repository: string,
    given: Author,
  ): Promise<{ author: Author; answer: HostAnswer | undefined; standing: Standing; rules: StandingRules }> {
    const rules = await standingRules(work);
    let author = given;
    let answer: HostAnswer | undefined;
    if (asksHostForAssociation(work, author)) {
      const read = await deps.associationOf!(repository, author.login!).catch(() => null);
      if (read === null) answer = { kind: 'unreadable' };
      else author = { ...author, association: read };
    }
    if (answer === undefined && permissionNeeded(author, rules)) {
      const read = deps.permissionOf ? await deps.permissionOf(repository, author.login!).catch(() => null) : null;
      answer = read === null ? { kind: 'unreadable' } : { kind: 'permission', permission: read };
    }
    return { author, answer, standing: standingOf(author, rules, answer), rules };
  }

  /** A GitLab author whose association the delivery could not carry: read from GitLab. */
  function asksHostForAssociation(work: Work, author: Author): boolean {
    return (
      author.login !== null &&
      author.association === null &&
      author.type === 'User' &&
      work.provider === 'gitlab' &&
      deps.associationOf !== undefined
    );
  }

  /** Why a kept review waits: its author's standing could not be read, and will be asked again. */
  function unreadableRow(work: Work, row: Rejection): string {
    const what = UNREADABLE[work.provider ?? 'github'];
    return `stored rejection ${row.id} by ${row.author?.login ?? 'unknown'}: ${what}; asked again on the next poll`;
  }

  /** What the decision log says of a refused author: the association, and the permission when read. */
  function whoSays(association: string | null, answer: HostAnswer | undefined): string {
    const permission = answer?.kind === 'permission' ? `, permission ${answer.permission}` : '';
    return `${association ?? 'no association'}${permission}`;
  }

  /** F1/F2: who may steer this Work's pull requests (core/standing.ts). */
  async function standingRules(work: Work): Promise<StandingRules> {
    // A Work's repositories are all on one host (Q1): its first names the host's identity.
    const self = (await deps.selfLogin?.(work.repositories[0]?.name)) ?? null;
    return rulesOfWork(work, self, deps.reviewBots ?? []);
  }

  /**
   * F1: a stored review rejection wakes the agent only while its author has standing under the Work's
   * rules as they are now: a row stored before authors were recorded, or whose author the Work no
   * longer trusts, is refused with its reason. Null when the row may be offered.
   */
  async function storedRowRefusal(
    task: Task,
    row: Rejection | undefined,
  ): Promise<{ reason: Refusal; detail: string } | null> {
    const route = routeRepository(deps.works, task.repository);
    if (route.kind === 'refuse') return { reason: route.reason, detail: `rejection ${row?.id ?? '?'}` };
    if (!row) return { reason: 'author_without_standing', detail: 'the rejection row cannot be read' };
    // The author as they stand now: GitHub's permission is read again (kept a minute by the adapter),
    // and a GitLab review kept while its access level could not be read (evaluateReview) is asked again.
    const judged = row.author ? await judgeAuthor(route.work, task.repository, row.author) : null;
    const standing = judged?.standing ?? null;
    if (standing !== null && standing.kind !== 'none') return null;
    if (standing?.reason === 'standing_unreadable')
      return { reason: 'standing_unreadable', detail: unreadableRow(route.work, row) };
    const why = standing?.reason ?? 'no author recorded';
    const permission = judged?.answer?.kind === 'permission' ? ` (permission ${judged.answer.permission})` : '';
    return {
      reason: why === 'bot_lookalike' ? 'bot_lookalike' : 'author_without_standing',
      detail: `stored rejection ${row.id} by ${row.author?.login ?? 'unknown'}: ${why}${permission}`,
    };
  }

  /** F1: resume the run to answer a recorded rejection; the claim is keyed on the rejection row. */
  async function offerRejection(ctx: Ctx & { task: Task }, rejection: Rejection): Promise<EvaluationResult> {
    const unstanding = await storedRowRefusal(ctx.task, rejection);
    if (unstanding) return refuse(ctx, unstanding.reason, unstanding.detail);
    // K9: a review kept while its author's standing was unknown is a person's act once the host says
    // so, dated when it was made (never moving the mark back; a review counted when made moves nothing).
    if (rejection.source === 'review') {
      const last = await deps.agent.humanAt(ctx.task.id);
      if (last === null || Date.parse(last) < Date.parse(rejection.createdAt))
        await deps.agent.markHuman(ctx.task.id, rejection.createdAt);
    }
    let stopFlag: boolean | 'unreadable';
    try {
      stopFlag = await ledger.readStopFlag();
    } catch {
      stopFlag = 'unreadable';
    }
    const gate = refusalOf({
      verdict: 'red',
      fork: false,
      task: ctx.task,
      latestRun: await ledger.latestRun(ctx.task.id),
      stopFlag,
    });
    if (gate.kind === 'refuse') return refuse(ctx, gate.reason);
    return claimAndDispatch(ctx, {
      coordinate: `review:${rejection.id}`,
      source: rejection.source === 'bot' ? 'bot' : 'review',
      headSha: rejection.headSha,
      fingerprint: fingerprint([rejection.source], rejection.body),
      rejection: { existingId: rejection.id },
    });
  }

  return {
    /** A guard outside the gate (the push guard, K3/K4) stops the loop: the one notice, with its reason. */
    async stop(task: Task, reason: StopReason, detail: string, headSha: string | null): Promise<EvaluationResult> {
      const ctx = {
        base: {
          identity: `guard:${reason}:${task.repository}#${task.pullRequest}@${headSha ?? 'unknown'}`,
          outcome: 'refused' as const,
        },
        task,
      };
      return fileNotice(ctx, reason, headSha, detail);
    },

    /**
     * I3: a retryable attempt (no outcome, or no progress by the deadline) is retried as a new attempt
     * row from the same budget, through every guard; the coordinate names the attempt it retries.
     */
    async offerRetry(taskId: number, attemptId: number): Promise<EvaluationResult | null> {
      const task = await ledger.getTask(taskId);
      const previous = (await ledger.listAttempts(taskId)).find((a) => a.id === attemptId);
      if (!task || !previous || previous.rejectionId === null) return null;
      const ctx: Ctx & { task: Task } = {
        base: { identity: `retry:${attemptId}`, outcome: 'refused' },
        task,
      };
      let stopFlag: boolean | 'unreadable';
      try {
        stopFlag = await ledger.readStopFlag();
      } catch {
        stopFlag = 'unreadable';
      }
      const gate = refusalOf({
        verdict: 'red',
        fork: false,
        task,
        latestRun: await ledger.latestRun(taskId),
        stopFlag,
      });
      if (gate.kind === 'refuse') return refuse(ctx, gate.reason);
      // F1: retrying a review's attempt wakes the agent again, so its author needs standing still.
      if (previous.source !== 'gate') {
        const row = (await ledger.listRejections(taskId)).find((r) => r.id === previous.rejectionId);
        const unstanding = await storedRowRefusal(task, row);
        if (unstanding) return refuse(ctx, unstanding.reason, unstanding.detail);
      }
      return claimAndDispatch(ctx, {
        coordinate: `retry:${attemptId}`,
        retryOf: attemptId,
        source: previous.source,
        headSha: task.ciHeadSha ?? previous.headSha,
        fingerprint: previous.fingerprint,
        rejection: { existingId: previous.rejectionId },
      });
    },

    /**
     * E2 for reviews: rejections younger than a week that no attempt answered yet are offered again,
     * each through the same standing check as a fresh review (offerRejection).
     */
    async reofferRejections(taskId: number): Promise<EvaluationResult[]> {
      const task = await ledger.getTask(taskId);
      if (!task || task.noticeAt !== null || task.parkedAt !== null) return [];
      const claimed = new Set((await ledger.listAttempts(taskId)).map((a) => a.coordinate));
      const cutoff = Date.parse(ledger.now()) - REJECTION_MAX_AGE_MS;
      const open = (await ledger.listRejections(taskId)).filter(
        (r) => r.source !== 'gate' && !claimed.has(`review:${r.id}`) && Date.parse(r.createdAt) > cutoff,
      );
      const out: EvaluationResult[] = [];
      for (const r of open) {
        out.push(await offerRejection({ base: { identity: `poll:rejection:${r.id}`, outcome: 'refused' }, task }, r));
      }
      return out;
    },

    evaluate: (item: StoredLoopEvent): Promise<EvaluationResult> => evaluateOne(item),
  };

  async function evaluateOne(item: StoredLoopEvent): Promise<EvaluationResult> {
    const ctx: Ctx = {
      base: { eventId: item.eventId, deliveryId: item.deliveryId, identity: item.event.identity, outcome: 'refused' },
      task: null,
    };
    try {
      return await evaluateEvent(ctx, item);
    } catch (err) {
      // C4: a ledger that cannot be read dispatches nothing; the refusal is recorded if it can be,
      // and the event stays pending so a later sweep evaluates it again.
      deps.logger.error({ err, eventId: item.eventId }, 'ledger unavailable during evaluation');
      await log({
        ...ctx.base,
        taskId: ctx.task?.id ?? null,
        outcome: 'refused',
        reason: 'ledger_unavailable',
        detail: String((err as Error)?.message ?? err).slice(0, 300),
      });
      return { kind: 'refused', reason: 'ledger_unavailable', taskId: ctx.task?.id ?? null };
    }
  }

  async function evaluateEvent(ctx: Ctx, { eventId, event: e }: StoredLoopEvent): Promise<EvaluationResult> {
    switch (e.kind) {
      case 'github.check':
        return evaluateCheck(ctx, eventId, e);
      case 'github.pull_request':
        return evaluatePullRequest(ctx, e);
      case 'github.review':
        return evaluateReview(ctx, eventId, e);
      case 'github.comment':
        return evaluateComment(ctx, e);
    }
  }
}

export type Evaluator = ReturnType<typeof createEvaluator>;
