// Convergence for bot reviews (issue 36 item 6): an allow-listed bot's review is one round of its
// findings; the round is fingerprinted (body and inline comments, core/bot-findings.ts) and kept on
// its rejection row, so a round repeating one the agent already answered is seen across restarts and
// replicas, and stops the loop with the bot named, as the unchanged-failure rule does for CI (C5).
import { botRoundVerdict, findingsFingerprint, type BotRoundVerdict } from '../../core/bot-findings.js';
import type { ReviewSubmitted } from '../../core/neutral-events.js';
import type { Task } from '../../core/types.js';
import type { ReviewComment } from '../provider-port.js';
import type { EvaluateDeps, EvaluateLedger } from './ports.js';

/** Reads the Task's earlier rounds and what answered them, and the review's inline comments. */
export type BotConvergencePort = Pick<EvaluateDeps, 'reviewComments'> & {
  ledger: Pick<EvaluateLedger, 'listRejections' | 'listAttempts'>;
};

export interface BotRoundJudged {
  /** The round's fingerprint, stored on its rejection row. */
  findings: string;
  verdict: BotRoundVerdict;
}

/**
 * The round's fingerprint and whether it repeats an answered round of the same bot on the Task. The
 * inline comments are read from the host when it can show them; a read that fails fingerprints the
 * body alone (a repeat is then judged on less, never invented: a round that cannot be compared is new).
 */
export async function judgeBotRound(
  port: BotConvergencePort,
  task: Task,
  e: ReviewSubmitted,
  /** The review's comments when the caller read them already (null: that read failed). */
  read?: { comments: readonly ReviewComment[] | null },
): Promise<BotRoundJudged> {
  const comments = read ? read.comments : await reviewCommentsOf(port, e);
  const findings = findingsFingerprint({ body: e.body, comments: comments ?? [] });
  // A person's approve-one is an explicit "try once more": the repeat yields to it, as the unchanged-failure stop does.
  if (comments === null || task.approveOnePending) return { findings, verdict: { kind: 'new' } };
  const bot = (e.author ?? '').toLowerCase();
  const answered = new Set((await port.ledger.listAttempts(task.id)).map((a) => a.rejectionId));
  const earlier = (await port.ledger.listRejections(task.id))
    .filter((r) => r.source === 'bot' && r.findings !== undefined && r.author?.login?.toLowerCase() === bot)
    .map((r) => ({ fingerprint: r.findings!, answered: answered.has(r.id) }));
  return { findings, verdict: botRoundVerdict(e.author ?? 'the review bot', earlier, findings) };
}

/** The review's comments as the host shows them; [] for a host without them, null when the read failed. */
export async function reviewCommentsOf(
  port: Pick<BotConvergencePort, 'reviewComments'>,
  e: ReviewSubmitted,
): Promise<readonly ReviewComment[] | null> {
  return port.reviewComments ? port.reviewComments(e.repository, e.number, e.reviewId).catch(() => null) : [];
}
