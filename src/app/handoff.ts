// The hand-off on the change under review (SPEC K5, K8, G1): when the loop stops for a Task, the pull
// request gets the `fixloop:needs-human` label and one state comment, updated and never duplicated;
// `fixloop:approve-one` grants exactly one more attempt and is removed when used; no answer within
// the park timeout parks the Task for good. A hand-edited state comment is reported and rewritten
// from the ledger, which stays the truth. V4: the label grants only while the Task's grant cap has
// room; past it the label is still consumed, and the pull request is told why and how to open more.
import { APPROVE_ONE_LABEL, HANDOFF_LABEL, handoffVerdict, hasLabel } from '../core/handoff.js';
import {
  compareWithLedger,
  findOwnStateComment,
  parseStateComment,
  renderStateComment,
  type LoopState,
  type StateKey,
  type StateSummaryFacts,
} from '../core/state-comment.js';
import { DEFAULT_MAX_ATTEMPTS } from '../core/budget.js';
import type { Task } from '../core/types.js';
import { referenceOf, type WordsOf } from '../core/host-words.js';
import { DEFAULT_MAX_GRANTS, grantAllowance, grantCapMessage } from '../core/grant-cap.js';
import type { ProviderPort, PullRequestInfo } from './provider-port.js';
import type { LabelStanding } from './label-standing.js';
import type { Clock, Logger } from './ports.js';
import type { Ledger } from './ledger-port.js';

/**
 * The hand-off reads a Task's attempts and notice (and, for the comment's summary, its board row, its
 * rejections and the stop flag) and writes only its own columns (K5, K8).
 */
export type HandoffLedger = Pick<
  Ledger,
  | 'boardPage'
  | 'listRejections'
  | 'readStopFlag'
  | 'countAttempts'
  | 'getNotice'
  | 'getTask'
  | 'grantApproveOne'
  | 'listAttempts'
  | 'park'
  | 'recordDecisions'
  | 'setHandoff'
  | 'setStateCommentId'
>;

export interface HandoffDeps {
  ledger: HandoffLedger;
  host: ProviderPort;
  logger: Logger;
  clock: Clock;
  parkAfterMs: number;
  /** HMAC key for the state comment's digest, so a deliberate edit cannot forge it. */
  stateKey: StateKey;
  /** K9: a person's approve-one is a person acting on the Task. */
  markHuman?: (taskId: number, at: string) => Promise<void>;
  /** V4: the configured cap on grants per Task (TASK_MAX_GRANTS); a Task's own cap wins. Default 3. */
  maxGrants?: number;
  /** F1 (decision 0042): whether whoever added a label has standing (label-standing.ts); absent: anyone. */
  labelStanding?: (task: Task, label: string) => Promise<LabelStanding>;
  /** C1: the configured budget, for the comment's "1 of 2 automatic attempts used"; default 2. */
  maxAttempts?: number;
  /** K8: the dashboard's origin (FIXLOOP_PUBLIC_URL), for the comment's link to the Task page; absent: no link. */
  publicUrl?: string | null;
  /** The words of a Task's host (issue 34): the state comment speaks of its merge request's pipeline on GitLab. */
  wordsOf: WordsOf;
}

async function loopStateOf(ledger: HandoffLedger, task: Task, configuredCap: number): Promise<LoopState> {
  const [attempts, notice] = await Promise.all([ledger.listAttempts(task.id), ledger.getNotice(task.id)]);
  const times = [task.createdAt, ...attempts.map((a) => a.createdAt), notice?.createdAt, task.parkedAt].filter(
    (t): t is string => !!t,
  );
  return {
    taskId: task.id,
    repository: task.repository,
    pullRequest: task.pullRequest,
    attempts: attempts.map((a) => ({
      coordinate: a.coordinate,
      status: a.status,
      fingerprint: a.fingerprint,
      createdAt: a.createdAt,
    })),
    notice:
      notice && task.noticeAt !== null
        ? { reason: notice.reason, headSha: notice.headSha, attemptsUsed: notice.attemptsUsed }
        : null,
    parked: task.parkedAt !== null,
    approveOneUsed: task.extraAttempts > 0,
    grants: (({ used, max, left }) => ({ used, max, left }))(
      grantAllowance(task.extraAttempts, configuredCap, task.maxGrants),
    ),
    // The newest fact, not "now": an unchanged ledger renders an unchanged comment.
    updatedAt: times.sort().at(-1)!,
  };
}

/**
 * K8, V2: what the comment's summary says beyond the mirrored state — the loop's state as the board
 * shows it, the budget, the failing checks of the current head (the poll's gate, and the red results
 * stored for that head), the stop flag and the Task page. Only facts from the ledger, so an unchanged
 * ledger renders an unchanged comment.
 */
async function summaryFactsOf(
  ledger: HandoffLedger,
  task: Task,
  opts: { maxAttempts: number; publicUrl: string | null; wordsOf: WordsOf },
): Promise<StateSummaryFacts> {
  const [page, rejections, globalStop] = await Promise.all([
    ledger.boardPage({ taskId: task.id, limit: 1 }),
    ledger.listRejections(task.id),
    ledger.readStopFlag().catch(() => false), // unreadable: the gate refuses anyway; the comment does not guess
  ]);
  const head = task.ciHeadSha;
  const failing = [
    ...(task.gate && head !== null && task.gate.headSha === head ? task.gate.failing : []),
    ...rejections.filter((r) => r.source === 'gate' && r.headSha === head && r.checkName).map((r) => r.checkName!),
  ];
  return {
    loopState: page.rows[0]?.loopState ?? 'idle',
    ciState: task.ciState,
    headSha: head,
    attemptsAllowed: opts.maxAttempts + task.extraAttempts,
    failing: head === null ? [] : failing,
    globalStop,
    skipLabel: task.skipLabel,
    taskUrl: opts.publicUrl ? `${opts.publicUrl.replace(/\/+$/, '')}/tasks/${task.id}` : null,
    words: opts.wordsOf(task.repository),
  };
}

export function createHandoff(deps: HandoffDeps) {
  const { ledger, host, logger } = deps;
  const configuredCap = deps.maxGrants ?? DEFAULT_MAX_GRANTS;
  // Per repository: GitHub's and GitLab's identities differ (Q1).
  const selves = new Map<string, Promise<string | null>>();
  const selfLogin = (repository: string) => {
    let self = selves.get(repository);
    if (!self) selves.set(repository, (self = host.selfLogin(repository).catch(() => null)));
    return self;
  };

  async function record(
    task: Task,
    reason: string,
    detail: string | null,
    outcome: 'noticed' | 'refused' | 'failed' = 'noticed',
  ) {
    await ledger.recordDecisions([{ taskId: task.id, outcome, reason, detail }]);
  }

  /** Write the state comment: update fixloop's own one, or create it once. Reports a hand edit. */
  async function upsertStateComment(task: Task): Promise<string | null> {
    const state = await loopStateOf(ledger, task, configuredCap);
    const facts = await summaryFactsOf(ledger, task, {
      maxAttempts: deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      publicUrl: deps.publicUrl ?? null,
      wordsOf: deps.wordsOf,
    });
    const body = renderStateComment(state, deps.stateKey, facts);
    const comments = await host.listIssueComments(task.repository, task.pullRequest);
    // K8: found by the id the ledger kept, by fixloop's login, or by its signed state — never by the
    // login alone, which a token such as Actions' GITHUB_TOKEN may not read (GET /user answers 403).
    const own = findOwnStateComment(comments, {
      recordedId: task.stateCommentId,
      selfLogin: await selfLogin(task.repository),
      key: deps.stateKey,
      taskId: task.id,
      repository: task.repository,
      pullRequest: task.pullRequest,
    });
    if (!own) {
      const created = await host.createIssueComment(task.repository, task.pullRequest, body);
      await ledger.setStateCommentId(task.id, String(created.id));
      return String(created.id);
    }
    // Our own comment with its marker edited away is a hand edit too.
    const parsed = parseStateComment(own.body, deps.stateKey) ?? { state: null, intact: false, document: undefined };
    if (
      parsed &&
      (!parsed.intact || (parsed.state && compareWithLedger(parsed, state).length > 0 && own.body !== body))
    ) {
      const diffs = parsed.intact ? [] : compareWithLedger(parsed, state);
      // K8: a digest that does not match means a person edited the JSON; the ledger stays the truth.
      if (!parsed.intact) {
        logger.warn(
          { taskId: task.id, commentId: own.id, differences: diffs.length },
          'state comment was edited by hand; rewriting it from the ledger',
        );
        await record(
          task,
          'state_comment_tampered',
          `comment ${own.id}: ${
            diffs
              .map((d) => d.path)
              .slice(0, 10)
              .join(', ') || 'digest mismatch'
          }`,
          'failed',
        );
      }
    }
    if (own.body !== body) await host.updateIssueComment(task.repository, task.pullRequest, own.id, body);
    if (task.stateCommentId !== String(own.id)) await ledger.setStateCommentId(task.id, String(own.id));
    return String(own.id);
  }

  return {
    upsertStateComment,
    /** Called by the poll for every Task it read (pr = the pull request as GitHub shows it now). */
    async sync(task: Task, pr: PullRequestInfo): Promise<void> {
      const attempts = await ledger.countAttempts(task.id);
      if (task.noticeAt === null) {
        // K5: a grant made away from the pull request (the dashboard, the API, `/fixloop retry`) re-opened
        // the loop: the stop's label goes, as it does when the approve-one label is used.
        if (hasLabel(pr.labels, HANDOFF_LABEL)) {
          await host.removeLabel(task.repository, task.pullRequest, HANDOFF_LABEL);
          await record(task, 'handoff_cleared', `the loop is on again: label ${HANDOFF_LABEL} removed`);
        }
        // K8: once the loop has acted, the comment mirrors it; nothing is posted before that.
        if (attempts > 0) await upsertStateComment(task);
        return;
      }
      if (task.parkedAt !== null) {
        // Parked is final; keep reporting edits, nothing else.
        await upsertStateComment(task);
        return;
      }
      if (task.handoffAt === null) {
        const words = deps.wordsOf(task.repository);
        // K5: the first sight of a stop: the label and the state comment, once per stop round.
        if (!hasLabel(pr.labels, HANDOFF_LABEL))
          await host.addLabels(task.repository, task.pullRequest, [HANDOFF_LABEL]);
        const commentId = await upsertStateComment(task);
        await ledger.setHandoff(task.id, task.stopRound, commentId);
        await record(
          task,
          'handoff_posted',
          `label ${HANDOFF_LABEL} and state ${words.comment} on ${referenceOf(words, task.repository, task.pullRequest)}`,
        );
      } else {
        await upsertStateComment(task);
      }
      const verdict = handoffVerdict({
        stoppedAt: task.noticeAt,
        now: deps.clock.now().toISOString(),
        labels: pr.labels,
        approveOneConsumedAt: null,
        parkedAt: null,
        parkAfterMs: deps.parkAfterMs,
      });
      switch (verdict.kind) {
        case 'approve_one': {
          // F1 (decision 0042): the label grants only from a person with standing on the repository.
          const by = deps.labelStanding ? await deps.labelStanding(task, APPROVE_ONE_LABEL) : null;
          if (by?.kind === 'unreadable') {
            await record(task, 'standing_unreadable', by.detail, 'refused'); // the label stays: asked again
            return;
          }
          if (by?.kind === 'refused') {
            await host.removeLabel(task.repository, task.pullRequest, APPROVE_ONE_LABEL);
            await record(task, 'author_without_standing', by.detail, 'refused');
            await host.createIssueComment(
              task.repository,
              task.pullRequest,
              `fixloop: the label \`${APPROVE_ONE_LABEL}\` was removed without effect: only a person with ` +
                `${by.minimum} access or more to this repository may grant another attempt, and ` +
                `${by.login ? `@${by.login}` : 'whoever added it'} is not one.`,
            );
            return;
          }
          // Consumed when used: the label goes first, so a label that could not be removed never
          // grants twice; the grant itself is a compare-and-set on the stop round (one replica wins).
          await host.removeLabel(task.repository, task.pullRequest, APPROVE_ONE_LABEL);
          const granted = await ledger.grantApproveOne(task.id, task.stopRound, configuredCap);
          if (granted.kind === 'granted') {
            await deps.markHuman?.(task.id, deps.clock.now().toISOString());
            await host.removeLabel(task.repository, task.pullRequest, HANDOFF_LABEL).catch(() => undefined);
            await record(task, 'approve_one', 'a person granted exactly one more automatic attempt');
            const after = await ledger.getTask(task.id);
            if (after) await upsertStateComment(after);
          } else if (granted.kind === 'capped') {
            // V4: past the cap the label grants nothing; the person who added it is told why, once
            // (the label is gone), and how to open more.
            const why = grantCapMessage(task.id, grantAllowance(granted.used, configuredCap, granted.ownCap));
            await record(task, 'grant_cap', `label ${APPROVE_ONE_LABEL}: ${why}`, 'refused');
            await host.createIssueComment(
              task.repository,
              task.pullRequest,
              `fixloop: the label \`${APPROVE_ONE_LABEL}\` was removed without effect. ${why}`,
            );
          }
          return;
        }
        case 'park': {
          if (await ledger.park(task.id, task.stopRound)) {
            await record(
              task,
              'task_parked',
              `no answer within ${Math.round(deps.parkAfterMs / 3_600_000)} h; the Task will not re-enter the loop on its own`,
              'refused',
            );
            const after = await ledger.getTask(task.id);
            if (after) await upsertStateComment(after);
          }
          return;
        }
        case 'waiting':
        case 'parked':
          return;
      }
    },
  };
}
