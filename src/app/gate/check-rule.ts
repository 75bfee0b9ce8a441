// Rules per check (issue 36): after triage and the unchanged-failure rule, the Work's rule for the
// failing check (core/check-rules.ts) decides whether this failure goes to a person (0 attempts, or
// the check's own attempts spent), is re-run first, or goes on to the Task's budget and the claim.
// Attempts are counted per rule from the stored failures they answered, so no new state is kept.
import { checkRuleVerdict, checkRulesOf, ruleForCheck, type CheckRule } from '../../core/check-rules.js';
import { checkRunIdOf, headChecksOf } from '../../core/head-checks.js';
import type { CheckResult } from '../../core/neutral-events.js';
import type { Attempt, Task } from '../../core/types.js';
import type { Outcomes } from './outcome.js';
import { HEAD_EVENTS_MAX, type EvaluateDeps, type EvaluateLedger, type Step, type TaskEvaluation } from './ports.js';

/** Reads the Work's rules, the Task's stored failures and the head's checks; asks for a re-run. */
export type CheckRulePort = Pick<EvaluateDeps, 'works' | 'requestRerun' | 'classify'> & {
  ledger: Pick<EvaluateLedger, 'listRejections' | 'headCheckEvents'>;
  end: Outcomes;
};

/** A CI job's id as its identity carries it: a check run's, or a pipeline job's. */
function jobIdOf(identity: string): number | null {
  const job = /:job:(\d+):/.exec(identity);
  return checkRunIdOf(identity) ?? (job ? Number(job[1]) : null);
}

export async function applyCheckRule(
  port: CheckRulePort,
  ev: TaskEvaluation,
  red: CheckResult,
  attempts: Attempt[],
): Promise<Step<object>> {
  const task = ev.task;
  const rules = checkRulesOf(port.works, task.repository);
  const rule = ruleForCheck(rules, red.name);
  if (rule === null) return { kind: 'go' };
  const rejections = new Map((await port.ledger.listRejections(task.id)).map((r) => [r.id, r]));
  const attemptsOnRule = attempts.filter((a) => {
    if (a.source !== 'gate' || a.rejectionId === null) return false;
    return ruleForCheck(rules, rejections.get(a.rejectionId)?.checkName ?? null) === rule;
  }).length;
  const verdict = checkRuleVerdict({ rule, attemptsOnRule, grants: task.extraAttempts });
  switch (verdict.kind) {
    case 'agent':
      return { kind: 'go' };
    case 'person':
      return { kind: 'done', result: await port.end.notice(ev, verdict.reason, red.sha, verdict.detail) };
    case 'rerun_first': {
      // The head's own re-run budget (triage.rerunsPerHead) and claim hold: a re-run already asked for
      // this head, or none to be had, lets the failure on to the agent.
      if (!port.requestRerun) return { kind: 'go' };
      const own = jobIdOf(red.identity);
      const ids =
        own !== null
          ? [own]
          : headChecksOf(await port.ledger.headCheckEvents(red.repository, red.sha, HEAD_EVENTS_MAX), port.classify)
              .redCheckRunIds;
      if (ids.length === 0) return { kind: 'go' };
      const rerun = await port.requestRerun({
        taskId: task.id,
        repository: task.repository,
        headSha: red.sha,
        checkRunIds: ids,
        reason: verdict.detail,
      });
      if (rerun.kind === 'requested')
        return { kind: 'done', result: port.end.refuse(ev, 'rerun_requested', verdict.detail) };
      if (rerun.kind === 'in_flight')
        return { kind: 'done', result: port.end.refuse(ev, 'rerun_in_flight', verdict.detail) };
      return { kind: 'go' };
    }
  }
}

/**
 * The push guard's question (issue 36, push-guard.ts): the rule of the check an attempt answered, so
 * a fix for that check may touch only the paths its rule lists. Null for a review's attempt, or none.
 */
export function checkRuleOfAttempt(
  ledger: Pick<EvaluateLedger, 'listAttempts' | 'getRejection'>,
  works: EvaluateDeps['works'],
): (task: Task, attemptId: number) => Promise<CheckRule | null> {
  return async (task, attemptId) => {
    const rules = checkRulesOf(works, task.repository);
    if (rules.length === 0) return null;
    const attempt = (await ledger.listAttempts(task.id)).find((a) => a.id === attemptId);
    if (!attempt || attempt.source !== 'gate' || attempt.rejectionId === null) return null;
    return ruleForCheck(rules, (await ledger.getRejection(attempt.rejectionId))?.checkName ?? null);
  };
}
