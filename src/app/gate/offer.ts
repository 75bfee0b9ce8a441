// The people path's way to an attempt (SPEC F1, E2, I3): a stored rejection (a review, a bot's
// finding, a comment's doorbell) or a retry of an attempt is offered to the agent only while its
// author still has standing and the loop may resume (may-resume.ts); then it is claimed like a red.
import { fingerprint } from '../../core/fingerprint.js';
import { DOORBELL_MAX_AGE_MS } from '../../core/doorbell.js';
import type { Rejection } from '../../core/types.js';
import { storedRowRefusal, type StandingPort } from './author-standing.js';
import { resumeRefusal, type MayResumeLedger } from './may-resume.js';
import type { AttemptToClaim } from './claim.js';
import type { Outcomes } from './outcome.js';
import type { EvaluateDeps, EvaluateLedger, EvaluationResult, TaskEvaluation } from './ports.js';

/** A rejection nobody answered for a week was handled by a person or abandoned (F2). */
const REJECTION_MAX_AGE_MS = DOORBELL_MAX_AGE_MS;

/** Reads the Task, its attempts and rejections; marks when a person acted; claims through `attempt`. */
export type OfferPort = StandingPort &
  Pick<EvaluateDeps, 'agent'> & {
    ledger: MayResumeLedger & Pick<EvaluateLedger, 'getTask' | 'listAttempts' | 'listRejections' | 'now'>;
    end: Outcomes;
    /** The gate's way from an attempt to claim to the runner: budget, guards, claim, dispatch. */
    attempt(ev: TaskEvaluation, c: AttemptToClaim): Promise<EvaluationResult>;
  };

/** F1: resume the run to answer a recorded rejection; the claim is keyed on the rejection row. */
export async function offerRejection(
  port: OfferPort,
  ev: TaskEvaluation,
  rejection: Rejection,
): Promise<EvaluationResult> {
  const unstanding = await storedRowRefusal(port, ev.task, rejection);
  if (unstanding) return port.end.refuse(ev, unstanding.reason, unstanding.detail);
  // K9: a review kept while its author's standing was unknown is a person's act once the host says
  // so, dated when it was made (never moving the mark back; a review counted when made moves nothing).
  if (rejection.source === 'review') {
    const last = await port.agent.humanAt(ev.task.id);
    if (last === null || Date.parse(last) < Date.parse(rejection.createdAt))
      await port.agent.markHuman(ev.task.id, rejection.createdAt);
  }
  const refusal = await resumeRefusal(port.ledger, { verdict: 'red', fork: false, task: ev.task });
  if (refusal) return port.end.refuse(ev, refusal);
  return port.attempt(ev, {
    coordinate: `review:${rejection.id}`,
    source: rejection.source === 'bot' ? 'bot' : 'review',
    headSha: rejection.headSha,
    fingerprint: fingerprint([rejection.source], rejection.body),
    rejection: { existingId: rejection.id },
  });
}

/**
 * I3: a retryable attempt (no outcome, or no progress by the deadline) is retried as a new attempt
 * row from the same budget, through every guard; the coordinate names the attempt it retries.
 */
export async function offerRetry(port: OfferPort, taskId: number, attemptId: number): Promise<EvaluationResult | null> {
  const { ledger, end } = port;
  const task = await ledger.getTask(taskId);
  const previous = (await ledger.listAttempts(taskId)).find((a) => a.id === attemptId);
  if (!task || !previous || previous.rejectionId === null) return null;
  const ev: TaskEvaluation = { base: { identity: `retry:${attemptId}`, outcome: 'refused' }, task };
  const refusal = await resumeRefusal(ledger, { verdict: 'red', fork: false, task });
  if (refusal) return end.refuse(ev, refusal);
  // F1: retrying a review's attempt wakes the agent again, so its author needs standing still.
  if (previous.source === 'review' || previous.source === 'bot') {
    const row = (await ledger.listRejections(taskId)).find((r) => r.id === previous.rejectionId);
    const unstanding = await storedRowRefusal(port, task, row);
    if (unstanding) return end.refuse(ev, unstanding.reason, unstanding.detail);
  }
  return port.attempt(ev, {
    coordinate: `retry:${attemptId}`,
    retryOf: attemptId,
    source: previous.source,
    headSha: task.ciHeadSha ?? previous.headSha,
    fingerprint: previous.fingerprint,
    rejection: { existingId: previous.rejectionId },
  });
}

/**
 * E2 for reviews: rejections younger than a week that no attempt answered yet are offered again,
 * each through the same standing check as a fresh review (offerRejection).
 */
export async function reofferRejections(port: OfferPort, taskId: number): Promise<EvaluationResult[]> {
  const { ledger } = port;
  const task = await ledger.getTask(taskId);
  if (!task || task.noticeAt !== null || task.parkedAt !== null) return [];
  const claimed = new Set((await ledger.listAttempts(taskId)).map((a) => a.coordinate));
  const cutoff = Date.parse(ledger.now()) - REJECTION_MAX_AGE_MS;
  const open = (await ledger.listRejections(taskId)).filter(
    (r) =>
      (r.source === 'review' || r.source === 'bot') &&
      !claimed.has(`review:${r.id}`) &&
      Date.parse(r.createdAt) > cutoff,
  );
  const out: EvaluationResult[] = [];
  for (const r of open) {
    out.push(await offerRejection(port, { base: { identity: `poll:rejection:${r.id}`, outcome: 'refused' }, task }, r));
  }
  return out;
}
