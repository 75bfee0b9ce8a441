// Issue 35 item 2 (SPEC L1, I5; decision 0074): an agent that lives on the pull request may say itself
// that it has finished. Copilot's cloud agent does, on the pull request: its host records
// `copilot_work_started` when a session begins, then `copilot_work_finished` or
// `copilot_work_finished_failure` when it ends. A mention run ends at the first finish recorded at or
// after its mention — an earlier one belongs to an earlier session. What that end means is not
// decided here: a run that ends without a call or a push files agent_unreachable (sign-of-life.ts),
// with these words as its cause. Pure.

export const COPILOT_WORK_FINISHED = 'copilot_work_finished';
export const COPILOT_WORK_FAILED = 'copilot_work_finished_failure';

/** One work event of the pull request, as its host lists it. */
export interface AgentWorkEvent {
  event: string;
  /** ISO 8601, as the host wrote it. */
  createdAt: string;
}

export interface AgentFinish {
  /** `completed` for a finish, `failed` for a failure: the run's state. */
  state: 'completed' | 'failed';
  at: string;
  /** In the reader's words: the run log's line, and the cause a notice gives. */
  detail: string;
}

/** The first finish at or after `since` (the mention's time), or null while the agent works (or never began). */
export function agentFinish(agent: string, events: readonly AgentWorkEvent[], since: string): AgentFinish | null {
  const from = Date.parse(since);
  if (!Number.isFinite(from)) return null;
  const finishes = events
    .filter((e) => e.event === COPILOT_WORK_FINISHED || e.event === COPILOT_WORK_FAILED)
    .map((e) => ({ ...e, t: Date.parse(e.createdAt) }))
    .filter((e) => Number.isFinite(e.t) && e.t >= from)
    .sort((a, b) => a.t - b.t);
  const first = finishes[0];
  if (!first) return null;
  return first.event === COPILOT_WORK_FAILED
    ? {
        state: 'failed',
        at: first.createdAt,
        detail: `${agent} reported on the pull request at ${first.createdAt} that its work failed (see its session log there)`,
      }
    : {
        state: 'completed',
        at: first.createdAt,
        detail: `${agent} reported on the pull request at ${first.createdAt} that it had finished its work`,
      };
}
