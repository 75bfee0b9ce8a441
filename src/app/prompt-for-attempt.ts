// What a resumed agent is told (SPEC C6, H2, I3): the CI or review frame, or the retry frame when the
// attempt retries one, built from the stored rejection so it survives a failed dispatch — and the
// failure in a few plain words for a runner that tells it where people read it (the mention runner).
import { ciFailureFrame, conflictFrame, retryFrame, reviewFrame } from '../core/prompt-frames.js';
import { renderPrompt } from '../core/prompt-template.js';
import { queueFailureFrame } from '../core/prompt-frames-queue.js';
import type { WordsOf } from '../core/host-words.js';
import type { Attempt, Rejection, Task, Work } from '../core/types.js';
import type { AgentLedger } from './agent-port.js';
import type { Random, RunSpec } from './ports.js';
import type { ReadFailedJobLog } from './failed-job-log.js';
import { checkRuleInstructions, checkRulesOf, ruleForCheck } from '../core/check-rules.js';

export interface PromptDeps {
  agent: Pick<AgentLedger, 'life'>;
  random: Random;
  maxAttempts: number;
  promptTemplate?: string;
  wordsOf: WordsOf;
  failedJobLog?: ReadFailedJobLog;
  /** Issue 36: the Works, whose rule for the failing check may add the operators' instructions to the frame. */
  works?: readonly Work[];
}

/**
 * C6: what the CI frame quotes. A red stored with no output of its own is completed from the host
 * when it serves job logs (a GitLab pipeline or job hook): the failed job's name and its log tail.
 */
async function ciEvidence(
  deps: PromptDeps,
  task: Task,
  rejection: Rejection,
  headSha: string | null,
): Promise<{ checkName: string; output: string }> {
  const stored = { checkName: rejection.checkName ?? '', output: rejection.body };
  if (rejection.body.trim() !== '' || headSha === null || !deps.failedJobLog) return stored;
  const job = await deps.failedJobLog(task.repository, headSha, stored.checkName);
  return job ? { checkName: job.name, output: job.text } : stored;
}

/** The seeded message: the CI or review frame, or the retry frame when this attempt retries one. */
export async function promptFor(
  deps: PromptDeps,
  task: Task,
  attemptId: number,
  attempts: Attempt[],
  rejection: Rejection,
  attemptNumber: number,
): Promise<{ prompt: string; failure: NonNullable<RunSpec['failure']> }> {
  const life = await deps.agent.life(attemptId);
  const base = {
    repository: task.repository,
    pullRequest: task.pullRequest,
    words: deps.wordsOf(task.repository),
    headSha: rejection.headSha ?? life?.headSha ?? null,
    attempt: attemptNumber,
    maxAttempts: deps.maxAttempts + task.extraAttempts,
    nonce: deps.random.token(12),
  };
  // Issue 36: a head that conflicts with its base has no failure to quote: its own frame names the base.
  if (rejection.source === 'conflict' || rejection.source === 'branch_update') {
    const retryOf = life?.retryOf != null ? attempts.findIndex((a) => a.id === life.retryOf) + 1 : 0;
    const frame = conflictFrame({ ...base, baseBranch: task.baseRef, ...(retryOf > 0 ? { retryOf } : {}) });
    return {
      prompt: renderPrompt(frame, deps.promptTemplate),
      failure: { what: `a merge conflict with ${task.baseRef ?? 'the base branch'}`, text: '' },
    };
  }
  const failure =
    rejection.source === 'gate'
      ? ({
          source: 'gate',
          conclusion: null,
          url: null,
          // Issue 36: a queue's red is read on the queue's commit, the attempt's coordinate.
          ...(await ciEvidence(
            deps,
            task,
            rejection,
            rejection.queue ? (attempts.find((a) => a.id === attemptId)?.coordinate ?? base.headSha) : base.headSha,
          )),
        } as const)
      : // F1: the reviewer's login, untrusted: the frame quotes it on one line.
        ({
          source: rejection.source as 'review' | 'bot',
          reviewer: rejection.author?.login ?? null,
          body: rejection.body,
        } as const);
  let frame;
  if (life?.retryOf != null) {
    const previous = await deps.agent.life(life.retryOf);
    frame = retryFrame({
      ...base,
      reason: previous?.outcome ? 'no_progress' : 'no_outcome',
      previousAttempt: attempts.findIndex((a) => a.id === life.retryOf) + 1,
      failure,
    });
  } else if (failure.source === 'gate')
    // Issue 36: a red of the merge queue's commit says first that it fails only combined with the queue.
    frame = rejection.queue
      ? queueFailureFrame({ ...base, ...failure, queue: rejection.queue })
      : ciFailureFrame({ ...base, ...failure });
  else frame = reviewFrame({ ...base, ...failure });
  // Issue 36: the rule of the check this failure was stored for (as the gate counted it) may add instructions.
  const rule =
    rejection.source === 'gate'
      ? ruleForCheck(checkRulesOf(deps.works ?? [], task.repository), rejection.checkName)
      : null;
  const instructions = checkRuleInstructions(rule, base.nonce);
  if (instructions !== null) frame = { ...frame, situation: `${frame.situation}\n\n${instructions}` };
  const told =
    failure.source === 'gate'
      ? { what: failure.checkName, text: failure.output }
      : { what: `review by ${failure.reviewer ?? 'a reviewer'}`, text: failure.body };
  return { prompt: renderPrompt(frame, deps.promptTemplate), failure: told };
}
