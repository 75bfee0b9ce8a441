// Who added a label that steers the loop (SPEC K5 with F1, decision 0042). `fixloop:approve-one`
// grants an attempt, so on GitHub it counts only when the person who added it (its `labeled` event)
// has at least the Work's minimum permission on the repository, as for reviews and commands.
// GitLab keeps the label as its own answer: labelling a merge request already takes a Reporter.
import {
  DEFAULT_HOST_STANDING,
  labelerPermissionNeeded,
  labelerStanding,
  rulesOfWork,
  type HostAnswer,
} from '../core/standing.js';
import type { WordsOf } from '../core/host-words.js';
import { routeRepository } from '../core/route.js';
import type { Task, Work } from '../core/types.js';
import type { ProviderPort } from './provider-port.js';

export type LabelStanding =
  | { kind: 'person'; login: string }
  | { kind: 'refused'; login: string | null; detail: string; /** the access it takes */ minimum: string }
  | { kind: 'unreadable'; detail: string };

export interface LabelStandingDeps {
  works: readonly Work[];
  /** Who added the label, and their permission (kept briefly by the adapter). */
  host: Pick<ProviderPort, 'labelActor' | 'repositoryPermission'>;
  /** fixloop's own login on the repository's host, which never grants itself anything. */
  selfLogin: (repository: string) => Promise<string | null>;
  reviewBots?: readonly string[];
  /** The words of a repository's host, which say how it gives standing (a label may be its own answer). */
  wordsOf: WordsOf;
}

export function createLabelStanding(deps: LabelStandingDeps) {
  return async (task: Task, label: string): Promise<LabelStanding> => {
    const route = routeRepository(deps.works, task.repository);
    // A repository no Work routes is never granted anything; GitLab's label is its own answer.
    if (route.kind === 'refuse')
      return { kind: 'refused', login: null, detail: `${task.repository}: no Work`, minimum: 'write' };
    const host = deps.wordsOf(task.repository).standing ?? DEFAULT_HOST_STANDING;
    if (host.labelCredit !== undefined) return { kind: 'person', login: host.labelCredit };
    const unreadable = (what: string): LabelStanding => ({
      kind: 'unreadable',
      detail: `label ${label}: ${what} could not be read; asked again on the next poll`,
    });
    let actor;
    try {
      actor = deps.host.labelActor ? await deps.host.labelActor(task.repository, task.pullRequest, label) : null;
    } catch {
      return unreadable('who added it');
    }
    const rules = rulesOfWork(route.work, await deps.selfLogin(task.repository), deps.reviewBots ?? [], host);
    const minimum = rules.minimumPermission ?? 'write';
    if (!actor) return { kind: 'refused', login: null, detail: `label ${label}: no event says who added it`, minimum };
    let answer: HostAnswer | undefined;
    if (labelerPermissionNeeded(actor, rules)) {
      const read = deps.host.repositoryPermission
        ? await deps.host.repositoryPermission(task.repository, actor.login!).catch(() => null)
        : null;
      if (read === null) return unreadable(`the permission of ${actor.login}, who added it,`);
      answer = { kind: 'permission', permission: read };
    }
    const standing = labelerStanding(actor, rules, answer);
    if (standing.kind !== 'none') return { kind: 'person', login: actor.login! };
    const permission = answer?.kind === 'permission' ? `, permission ${answer.permission}` : '';
    return {
      kind: 'refused',
      login: actor.login,
      detail: `label ${label} added by ${actor.login ?? 'an unknown account'} (${actor.type ?? 'no type'}${permission}): ${standing.reason}`,
      minimum,
    };
  };
}
