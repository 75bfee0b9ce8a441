// The text of the one Inbox notice filed when the loop stops for a Task (SPEC G1), in the words of
// the Task's host (issue 34): `acme/app#13` and its pull request, `group/app!13` and its merge request.
import { referenceOf, type HostWords } from './host-words.js';
import type { StopReason } from './reasons.js';
import { GUARD_STOP_WHY } from './guards.js';
import { CHECK_RULE_WHY } from './check-rules.js';

export interface NoticeFacts {
  repository: string;
  pullRequest: number;
  headSha: string | null;
  attemptsUsed: number;
  maxAttempts: number;
  reason: StopReason;
  /** What exactly tripped a guard (the offending files, the amounts), shown after the reason. */
  detail?: string | null;
  /** The host's words: how the change is written, what it and a CI result are called. */
  words: NoticeWords;
}

/** The host's words a notice uses. */
export type NoticeWords = Pick<HostWords, 'changeRequest' | 'referenceMark' | 'check'>;

/** Why the loop stopped, in words for people; shared by the notice and the state comment. */
export const STOP_WHY: Record<StopReason, string> = {
  budget_spent: 'the automatic fix budget is spent',
  unchanged_failure: 'the same failure came back unchanged on a new commit, so the last fix changed nothing',
  parked: 'nobody answered the hand-off in time, so the Task is parked and will not re-enter the loop on its own',
  dispatch_unconfirmed:
    'fixloop died while starting the agent and cannot tell whether it started, so it will not start it again on its own',
  agent_unreachable:
    "the agent's run ended without a single call to fixloop and without a push to the branch, so it never read the checks nor changed anything, and a retry would most likely fail the same way",
  agent_needs_person:
    "the agent's session is waiting for a person to answer it, so resuming it again would only add to what it waits on",
  approval_required:
    'a check is waiting for a person to approve it (action_required), which resuming the agent cannot clear',
  no_ci:
    'no CI ran on the new head after the attempt (a token whose pushes start no workflows, a path filter, a disabled workflow), so there is nothing to judge the fix by',
  interrupted_twice:
    "a restart of fixloop stopped the agent's run twice for the same attempt (it was offered again once, free, after the first), so it is not offered again on its own",
  run_timeout:
    "the agent's run was still unfinished past its window, so fixloop ended it rather than let it hold the loop; a retry would most likely hang the same way",
  queue_ejected: "the merge queue removed it for a reason no agent's push can fix",
  ...GUARD_STOP_WHY,
  ...CHECK_RULE_WHY,
  bot_repeats_findings:
    'a review bot repeated the findings of a round the agent already answered, so answering it again would change nothing',
};

export function noticeMessage(f: NoticeFacts): string {
  const head = f.headSha ? f.headSha.slice(0, 12) : 'unknown';
  return (
    `fixloop stopped for ${referenceOf(f.words, f.repository, f.pullRequest)}: ${STOP_WHY[f.reason]}${f.detail ? ` — ${f.detail}` : ''} ` +
    `(${f.attemptsUsed} of ${f.maxAttempts} automatic attempts used; last head seen ${head}). ` +
    `Read the failing ${f.words.check} on the ${f.words.changeRequest}, then fix it yourself or resume the run by hand.`
  );
}
