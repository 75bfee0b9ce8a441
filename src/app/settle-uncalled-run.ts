// I5, L1 (issue 35): what a run's end means when its agent never called fixloop. The sign of life is a
// call or a push (core/sign-of-life.ts): a run whose pull request's head moved after it was dispatched
// took action, and its attempt is settled as an agent's `action_taken` report would be — then
// acknowledged by that new head as progress (I3), so the red of the fix is judged when it arrives.
// A run with neither files the Task's one notice (agent_unreachable). Asked before the run is marked
// ended, so a crash in between leaves the run to be ended again, and this asked again. A run whose
// session waits for its user (R2, a `session` runner) files agent_needs_person instead (decision 0067).
import { signOfLife } from '../core/sign-of-life.js';
import { nextAttemptState } from '../core/attempt-state.js';
import type { WordsOf } from '../core/host-words.js';
import type { Task } from '../core/types.js';
import { LOG_EVENTS } from '../core/events.js';
import type { AgentLedger } from './agent-port.js';
import type { Ledger } from './ledger-port.js';
import type { DecisionWriter } from './decision-writer.js';
import type { Clock, Logger } from './ports.js';
import { fileStopNotice } from './stop-notice.js';
import { progressWithoutPoll } from './progress-from-head.js';

export interface UncalledRunDeps {
  ledger: Pick<Ledger, 'getRun' | 'getTask' | 'appendRunLog' | 'fileNotice'>;
  agent: AgentLedger;
  decisions: DecisionWriter;
  logger: Logger;
  clock: Clock;
  apiUrl: string;
  maxAttempts: number;
  wordsOf: WordsOf;
  /**
   * The pull request's head as its host has it now: an agent's push lands before its process exits,
   * but its webhook may arrive after. Absent (no host access) or failing: the ledger's head is used.
   */
  headNow?: (task: Task) => Promise<string | null>;
  runLogMaxChars: number;
}

export interface RunEnd {
  state: 'completed' | 'failed';
  exitCode: number | null;
  detail?: string | undefined;
  needsPerson?: boolean | undefined;
}

/** For an automatic attempt's run that is still open in the ledger: infer its push, or file the notice. */
export async function settleUncalledRun(
  deps: UncalledRunDeps,
  runId: number,
  attemptId: number,
  end: RunEnd,
): Promise<void> {
  const { ledger } = deps;
  const run = await ledger.getRun(runId);
  if (!run || (run.state !== 'queued' && run.state !== 'running')) return; // ended (and asked) before
  const life = await deps.agent.life(attemptId);
  const ended = { runId, attemptId, agentSeenAt: run.agentSeenAt, outcome: life?.outcome ?? null, ...end };
  if ((ended.agentSeenAt !== null && !end.needsPerson) || ended.outcome !== null) return; // a call: the usual path settles it
  const task = await ledger.getTask(run.taskId);
  if (!task || task.state !== 'open' || task.prState !== 'open') return;
  const now = deps.headNow ? await deps.headNow(task).catch(() => null) : null;
  const sign = signOfLife(ended, { dispatched: life?.headSha ?? null, now: now ?? task.ciHeadSha }, deps.apiUrl);
  if (sign.kind === 'called') return;
  await ledger.appendRunLog(runId, `\n[fixloop] ${sign.detail}\n`, deps.runLogMaxChars);
  if (sign.kind === 'pushed') return actionInferred(deps, task, runId, attemptId, sign.headSha, sign.detail);

  const reason = sign.kind === 'waiting' ? 'agent_needs_person' : 'agent_unreachable';
  const notice = await fileStopNotice(ledger, task, {
    maxAttempts: deps.maxAttempts,
    reason,
    headSha: life?.headSha ?? task.ciHeadSha,
    detail: sign.detail,
    words: deps.wordsOf(task.repository),
  });
  if (!notice) return; // a notice was filed already: the loop had stopped, and a person was told
  deps.decisions.write({
    taskId: task.id,
    attemptId,
    outcome: 'noticed',
    reason,
    detail: notice.message,
  });
  deps.logger.warn({ taskId: task.id, attemptId, runId, reason }, LOG_EVENTS.CI_AUTOFIX_EXHAUSTED);
}

/**
 * The inferred report: first write wins (I2), so an outcome the agent reported meanwhile stands; then
 * the attempt moves as for a reported action_taken — the head it was dispatched for as its baseline —
 * and the pushed head is its progress at once.
 */
async function actionInferred(
  deps: UncalledRunDeps,
  task: Task,
  runId: number,
  attemptId: number,
  pushed: string,
  detail: string,
): Promise<void> {
  const { agent } = deps;
  const at = deps.clock.now().toISOString();
  if (!(await agent.recordOutcome(attemptId, 'action_taken', 'inferred from a push', at))) return;
  const life = await agent.life(attemptId);
  if (!life) return;
  const t = nextAttemptState(life.state, { kind: 'outcome_reported', outcome: 'action_taken' });
  if (t.kind !== 'move') return;
  const baseline = JSON.stringify({ headSha: life.headSha ?? '' });
  if (!(await agent.moveAttempt(attemptId, [life.state], t.to, { actionTakenAt: at, baseline }))) return;
  deps.decisions.write({
    taskId: task.id,
    attemptId,
    outcome: 'reported',
    reason: 'outcome_action_taken',
    detail,
  });
  deps.logger.info(
    { taskId: task.id, attemptId, runId, outcome: 'action_taken', inferred: true },
    LOG_EVENTS.ATTEMPT_OUTCOME_REPORTED,
  );
  await progressWithoutPoll(deps, task.id, pushed);
}
