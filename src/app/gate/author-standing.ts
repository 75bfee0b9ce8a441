// F1/F2: whether the person behind a review, a comment or a stored rejection may steer the loop,
// under the Work's rules (core/standing.ts decides). This step asks the host only what the rules
// need; a read that fails is `unreadable`, never standing.
import { routeRepository } from '../../core/route.js';
import {
  permissionNeeded,
  DEFAULT_HOST_STANDING,
  rulesOfWork,
  standingOf,
  type Author,
  type HostAnswer,
  type HostStanding,
  type Standing,
  type StandingRules,
} from '../../core/standing.js';
import type { Refusal } from '../../core/reasons.js';
import type { Rejection, Task, Work } from '../../core/types.js';
import type { EvaluateDeps } from './ports.js';

/** Asks the host for an author's association or permission and for fixloop's own login. */
export type StandingPort = Pick<
  EvaluateDeps,
  'works' | 'associationOf' | 'permissionOf' | 'selfLogin' | 'reviewBots' | 'wordsOf'
>;

/** F1/F2: what could not be read when the repository's host could not say whether a person has standing. */
export function unreadableStanding(port: Pick<StandingPort, 'wordsOf'>, repository: string): string {
  return port.wordsOf(repository).standingUnreadable ?? "the person's standing on the host could not be read";
}

export interface JudgedAuthor {
  author: Author;
  answer: HostAnswer | undefined;
  standing: Standing;
  rules: StandingRules;
}

/**
 * An author's standing under the Work's rules, asking the host only what the rules need: GitLab's
 * member access level as the association (its hooks carry none), and GitHub's repository permission
 * for a person whose association passed the first filter (a stranger costs no call). Both are kept
 * briefly by the adapters.
 */
export async function judgeAuthor(
  port: StandingPort,
  work: Work,
  repository: string,
  given: Author,
): Promise<JudgedAuthor> {
  const rules = await standingRules(port, work, repository);
  let author = given;
  let answer: HostAnswer | undefined;
  if (asksHostForAssociation(port, repository, author)) {
    const read = await port.associationOf!(repository, author.login!).catch(() => null);
    if (read === null) answer = { kind: 'unreadable' };
    else author = { ...author, association: read };
  }
  if (answer === undefined && permissionNeeded(author, rules)) {
    const read = port.permissionOf ? await port.permissionOf(repository, author.login!).catch(() => null) : null;
    answer = read === null ? { kind: 'unreadable' } : { kind: 'permission', permission: read };
  }
  return { author, answer, standing: standingOf(author, rules, answer), rules };
}

/** What the decision log says of a refused author: the association, and the permission when read. */
export function whoSays(association: string | null, answer: HostAnswer | undefined): string {
  const permission = answer?.kind === 'permission' ? `, permission ${answer.permission}` : '';
  return `${association ?? 'no association'}${permission}`;
}

/**
 * F1: a stored review rejection wakes the agent only while its author has standing under the Work's
 * rules as they are now: a row stored before authors were recorded, or whose author the Work no
 * longer trusts, is refused with its reason. Null when the row may be offered.
 */
export async function storedRowRefusal(
  port: StandingPort,
  task: Task,
  row: Rejection | undefined,
): Promise<{ reason: Refusal; detail: string } | null> {
  const route = routeRepository(port.works, task.repository);
  if (route.kind === 'refuse') return { reason: route.reason, detail: `rejection ${row?.id ?? '?'}` };
  if (!row) return { reason: 'author_without_standing', detail: 'the rejection row cannot be read' };
  // The author as they stand now: GitHub's permission is read again (kept a minute by the adapter),
  // and a GitLab review kept while its access level could not be read (review.ts) is asked again.
  const judged = row.author ? await judgeAuthor(port, route.work, task.repository, row.author) : null;
  const standing = judged?.standing ?? null;
  if (standing !== null && standing.kind !== 'none') return null;
  if (standing?.reason === 'standing_unreadable')
    return { reason: 'standing_unreadable', detail: unreadableRow(port, task.repository, row) };
  const why = standing?.reason ?? 'no author recorded';
  const permission = judged?.answer?.kind === 'permission' ? ` (permission ${judged.answer.permission})` : '';
  return {
    reason: why === 'bot_lookalike' ? 'bot_lookalike' : 'author_without_standing',
    detail: `stored rejection ${row.id} by ${row.author?.login ?? 'unknown'}: ${why}${permission}`,
  };
}

/** An author whose association the delivery could not carry, on a host that says it (GitLab): read from the host. */
function asksHostForAssociation(port: StandingPort, repository: string, author: Author): boolean {
  return (
    author.login !== null &&
    author.association === null &&
    author.type === 'User' &&
    hostStandingOf(port, repository).associationFromHost &&
    port.associationOf !== undefined
  );
}

function hostStandingOf(port: Pick<StandingPort, 'wordsOf'>, repository: string): HostStanding {
  return port.wordsOf(repository).standing ?? DEFAULT_HOST_STANDING;
}

/** Why a kept review waits: its author's standing could not be read, and will be asked again. */
function unreadableRow(port: StandingPort, repository: string, row: Rejection): string {
  const what = unreadableStanding(port, repository);
  return `stored rejection ${row.id} by ${row.author?.login ?? 'unknown'}: ${what}; asked again on the next poll`;
}

/** F1/F2: who may steer this Work's pull requests (core/standing.ts). */
async function standingRules(port: StandingPort, work: Work, repository: string): Promise<StandingRules> {
  // A Work's repositories are all on one host (Q1): its first names the host's identity.
  const self = (await port.selfLogin?.(work.repositories[0]?.name)) ?? null;
  return rulesOfWork(work, self, port.reviewBots ?? [], hostStandingOf(port, repository));
}
