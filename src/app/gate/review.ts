// A review was submitted (SPEC F1, K9, E2): a person with standing requesting changes, or an
// allow-listed bot's finding, is stored as a rejection and offered to the agent (offer.ts); anyone
// else is recorded with the reason, and nothing is stored or woken.
import type { ReviewSubmitted } from '../../core/neutral-events.js';
import { routeRefusalWords, routeRepository } from '../../core/route.js';
import { rejectionFromReview } from '../../core/doorbell.js';
import { judgeAuthor, whoSays } from './author-standing.js';
import { offerRejection, type OfferPort } from './offer.js';
import { judgeBotRound, reviewCommentsOf, type BotConvergencePort } from './bot-convergence.js';
import { reviewTextOf } from '../../core/review-text.js';
import { awaitsBotMembership } from '../../core/standing.js';
import type { EvaluateLedger, Evaluation, EvaluationResult } from './ports.js';

/** Finds the Task, stores the rejection, marks when a person acted, then offers it. */
export type ReviewPort = OfferPort &
  BotConvergencePort & {
    ledger: OfferPort['ledger'] &
      BotConvergencePort['ledger'] &
      Pick<EvaluateLedger, 'findTaskByPullRequest' | 'createRejection'>;
  };

export async function reviewSubmitted(
  port: ReviewPort,
  ev: Evaluation,
  eventId: number | null,
  e: ReviewSubmitted,
): Promise<EvaluationResult> {
  const { ledger, end } = port;
  const route = routeRepository(port.works, e.repository);
  if (route.kind === 'refuse') return end.refuse(ev, route.reason, routeRefusalWords(route, e.repository));
  const task = await ledger.findTaskByPullRequest(e.repository, [e.number]);
  if (!task) return end.refuse(ev, 'no_task');
  const known = Object.assign(ev, { task }); // the same evaluation, its Task known from here on
  // F1: only authors with standing steer. A person the Work does not trust (by association, then by
  // their permission on the repository), or an account posing as an allow-listed bot, is recorded
  // with its reason; no row is written and nothing is woken.
  const { author, answer, standing, rules } = await judgeAuthor(port, route.work, e.repository, {
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
    return end.refuse(ev, standing.reason, `${by} (${e.authorType ?? 'no type'}, ${whoSays(association, answer)})`);
  // A person requesting changes, or an allow-listed bot's finding; an approval, a plain comment,
  // fixloop's own review or an unknown bot records nothing and resumes nothing.
  // A listed bot whose membership could not be read is kept as the bot's, never as a person's act (K9).
  const candidate = unknown
    ? e.state.toUpperCase() === 'CHANGES_REQUESTED'
      ? { source: awaitsBotMembership(author, rules) ? ('bot' as const) : ('review' as const) }
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
  if (!candidate) return end.refuse(ev, 'not_a_rejection', by);
  // K9: a person spoke (one whose standing is still unknown counts once it is read: offerRejection).
  if (candidate.source === 'review' && !unknown) await port.agent.markHuman(task.id, ledger.now());
  // Decision 0079: a host that sent no text with the review shows what the reviewer wrote in its comments.
  const comments = e.textUnsent || candidate.source === 'bot' ? await reviewCommentsOf(port, e) : null;
  // Issue 36: a bot's round is fingerprinted; one repeating a round the agent already answered stops the loop.
  const round = candidate.source === 'bot' ? await judgeBotRound(port, task, e, { comments }) : null;
  const rejection = await ledger.createRejection({
    taskId: task.id,
    source: candidate.source,
    headSha: e.headSha,
    checkName: null,
    body: e.textUnsent ? reviewTextOf(comments ?? []) : e.body,
    eventId,
    author, // so every later wake re-checks the author's standing (poll re-offer, doorbell, retry)
    ...(round ? { findings: round.findings } : {}),
  });
  if (round?.verdict.kind === 'repeat' && task.noticeAt === null && task.parkedAt === null)
    return end.notice(known, 'bot_repeats_findings', e.headSha, round.verdict.detail);
  return offerRejection(port, known, rejection);
}
