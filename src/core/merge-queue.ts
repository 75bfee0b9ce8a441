// What a merge queue's verdict on a pull request means for the loop (issue 36 item 1): a failing check
// of the queue's commit is a result on the Task like any other red, framed as failing only combined
// with the queue; an ejection for a reason no agent can fix goes to a person; some ejections need
// nothing at all. Hosts translate their own reasons into the neutral kinds below. Pure.

/** The queue's commit a check ran on: the base and the pull requests merged together for it. */
export interface MergeQueueContext {
  /** The branch the queue merges into, as the host named it (untrusted: only quoted in a prompt); null when not said. */
  baseRef: string | null;
  /** The pull request the queue's commit was built for. */
  pullRequest: number;
  /** That pull request's head when the queue built the commit; null when the host does not say (its current head). */
  headSha: string | null;
  /** The other pull requests merged into the queue's commit ahead of it; null when not known. */
  others: number[] | null;
  /**
   * The queue's run was cancelled with no check failing: the pull request may have left the queue for
   * a reason no check says, which the host is asked (decision 0075).
   */
  cancelled?: boolean;
}

/** Why a queue let a pull request go, in neutral words; each host maps its own reasons onto these. */
export const QUEUE_EJECTIONS = [
  'check_failed', // a required check of the queue's commit failed: that result reaches the agent
  'conflict', // it conflicts with a pull request ahead of it in the queue
  'timeout', // the queue's checks did not finish in time
  'removed_by_person', // a person took it out of the queue
  'queue_cleared', // the whole queue was emptied (a person, or a change of the base's rules)
  'rolled_back', // the queue was rolled back
  'protections', // the base's protection rules refused it (a missing review, a rule)
  'invalid_merge', // the queue could not build a valid merge of it
  'merged', // it is merged already: nothing to do
  'unknown', // a reason this version does not know: told to a person rather than guessed
] as const;
export type QueueEjection = (typeof QUEUE_EJECTIONS)[number];

/** Who answers an ejection: the agent (by the failing check's own result), a person, or nobody. */
export type EjectionRoute = { kind: 'agent' } | { kind: 'person'; why: string } | { kind: 'none' };

const PERSON_WHY: Record<Exclude<QueueEjection, 'check_failed' | 'merged'>, string> = {
  conflict: 'it conflicts with a pull request ahead of it in the merge queue',
  timeout: "the merge queue's checks did not finish in time",
  removed_by_person: 'a person removed it from the merge queue',
  queue_cleared: 'the merge queue was cleared',
  rolled_back: 'the merge queue was rolled back',
  protections: "the base branch's protection rules refused it in the merge queue",
  invalid_merge: 'the merge queue could not build a valid merge of it',
  unknown: 'the merge queue removed it for a reason fixloop does not know',
};

/**
 * A failed check is answered by its own red result on the queue's commit (deduplicated, budgeted and
 * triaged as any red); an ejection already merged needs nothing; every other reason is one no
 * agent's push can fix, so a person is told.
 */
export function routeEjection(reason: QueueEjection): EjectionRoute {
  if (reason === 'check_failed') return { kind: 'agent' };
  if (reason === 'merged') return { kind: 'none' };
  return { kind: 'person', why: PERSON_WHY[reason] };
}

/**
 * Whether a green head goes back in the merge queue (issue 36, per Work): only when the Work asks for
 * it, the Task's last attempt answered a red of the queue, and the head is a new one since that
 * attempt (its fix). Once per head is the ledger's compare-and-set, not this rule's.
 */
export function shouldRequeue(f: {
  enabled: boolean;
  lastAttempt: { headSha: string | null; answeredQueue: boolean } | null;
  greenHead: string;
}): boolean {
  return f.enabled && f.lastAttempt !== null && f.lastAttempt.answeredQueue && f.lastAttempt.headSha !== f.greenHead;
}
