// A comment on a pull request (SPEC F2, K9, M4): a `/fixloop` command from a person with standing is
// applied as that person's action; any other comment is only a doorbell for the newest stored
// rejection, which is checked (core/doorbell.ts), never merely fetched, before it is offered.
import type { CommentRang } from '../../core/neutral-events.js';
import { routeRefusalWords, routeRepository } from '../../core/route.js';
import { doorbell } from '../../core/doorbell.js';
import { judgeAuthor, whoSays, unreadableStanding } from './author-standing.js';
import { offerRejection, type OfferPort } from './offer.js';
import type { EvaluateDeps, EvaluateLedger, Evaluation, EvaluationResult } from './ports.js';

/** Finds the Task, reads its rejections and attempts, applies commands, then offers the rung row. */
export type CommentPort = OfferPort &
  Pick<EvaluateDeps, 'command'> & {
    ledger: OfferPort['ledger'] & Pick<EvaluateLedger, 'findTaskByPullRequest'>;
  };

export async function commentRang(port: CommentPort, ev: Evaluation, e: CommentRang): Promise<EvaluationResult> {
  const { ledger, end } = port;
  const route = routeRepository(port.works, e.repository);
  if (route.kind === 'refuse') return end.refuse(ev, route.reason, routeRefusalWords(route, e.repository));
  const task = await ledger.findTaskByPullRequest(e.repository, [e.number]);
  if (!task) return end.refuse(ev, 'no_task');
  const known = Object.assign(ev, { task }); // the same evaluation, its Task known from here on
  if (e.action !== 'created') return end.refuse(ev, 'doorbell_no_row', `comment ${e.action}`);
  const { author, answer, standing, rules } = await judgeAuthor(port, route.work, e.repository, {
    login: e.author,
    type: e.authorType,
    association: e.authorAssociation,
  });
  const association = author.association;
  // K9: "a person acted" only for a person with standing; a stranger's comment never resets the cap.
  if (standing.kind === 'person') await port.agent.markHuman(task.id, ledger.now());
  if (e.command !== null) {
    const what = `/fixloop ${e.command} by ${e.author ?? 'an unknown author'}`;
    // The host could not say who the author is: refused, and said so, so the person can ask again.
    if (standing.kind === 'none' && standing.reason === 'standing_unreadable')
      return end.refuse(ev, 'standing_unreadable', `${what}: ${unreadableStanding(port, e.repository)}`);
    // Commands are a person's: a bot, even an allow-listed reviewer, steers only through findings.
    if (standing.kind !== 'person')
      return end.refuse(ev, 'command_without_standing', `${what} (${whoSays(association, answer)})`);
    const refused = port.command
      ? await port.command(task, e.command, e.author ?? 'unknown')
      : 'comment commands are not available';
    if (refused !== null) return end.refuse(ev, 'command_not_applied', `${what}: ${refused}`);
    return { kind: 'recorded', taskId: task.id };
  }
  const row = (await ledger.listRejections(task.id)).at(-1) ?? null;
  const consumed = row
    ? (await ledger.listAttempts(task.id)).some((a) => a.coordinate === `review:${row.id}` || a.rejectionId === row.id)
    : false;
  // The row's author is judged as they stand now: asked again, as the poll's re-offer does.
  const rowAuthor =
    standing.kind !== 'none' && row?.author ? await judgeAuthor(port, route.work, task.repository, row.author) : null;
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
    return end.refuse(
      ev,
      verdict.reason === 'standing_unreadable' ? 'standing_unreadable' : `doorbell_${verdict.reason}`,
    );
  return offerRejection(port, known, row!);
}
