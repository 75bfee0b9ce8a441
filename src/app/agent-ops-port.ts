// The port the MCP server (SPEC M3) drives: what a resumed run may do, every call already bound
// to that one run by its run-scoped credential (FIXLOOP_RUN_TOKEN) — so no operation takes a
// task, run or pull request from the caller (I2). Implemented in-process by agent-ops.ts (HTTP `/mcp`)
// and over fixloop's JSON API by src/mcp/api-ops.ts (stdio `fixloop mcp`).

/** The one first-write outcome a resumed run reports for its attempt (I2). */
export const FIX_OUTCOMES = ['action_taken', 'non_actionable', 'blocked'] as const;
export type FixOutcome = (typeof FIX_OUTCOMES)[number];

/** The longest `blocked`/outcome reason accepted: it is shown to people (I2). */
export const REASON_MAX = 500;

export interface AgentOps {
  /** J1 for the run's own pull request: PrChecksResult (src/app/pr-checks.ts). */
  checks(input: { failingOnly: boolean; logLines: number }): Promise<unknown>;
  /** I2: first write wins; a second report is AgentOpsError('outcome_already_reported'). */
  reportOutcome(input: { outcome: FixOutcome; reason?: string }): Promise<{ attemptId: number; state: string }>;
  /** K6: costs add to the Task's spend; returns the new total. */
  reportSpend(input: { model?: number; sandbox?: number; note?: string }): Promise<{ totalSpend: number }>;
  /** The Task's loop view: attempts, budget, spend, state. */
  loopState(): Promise<unknown>;
}

export const AGENT_OPS_ERROR_CODES = [
  'unauthorized',
  'run_ended',
  'outcome_already_reported',
  'no_attempt',
  'invalid',
  'unavailable',
] as const;
export type AgentOpsErrorCode = (typeof AGENT_OPS_ERROR_CODES)[number];

/** An expected refusal of an AgentOps call; each edge maps it once (HTTP status, MCP tool error). */
export class AgentOpsError extends Error {
  override readonly name = 'AgentOpsError';

  constructor(
    readonly code: AgentOpsErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The HTTP status of each refusal, shared by `/mcp`'s credential check and the `/api/run/*` routes. */
export const AGENT_OPS_ERROR_STATUS = {
  unauthorized: 401,
  run_ended: 403,
  outcome_already_reported: 409,
  no_attempt: 409,
  invalid: 400,
  unavailable: 503,
} as const satisfies Record<AgentOpsErrorCode, number>;

export function isAgentOpsErrorCode(value: unknown): value is AgentOpsErrorCode {
  return typeof value === 'string' && (AGENT_OPS_ERROR_CODES as readonly string[]).includes(value);
}

/** Resolves a run-scoped credential (FIXLOOP_RUN_TOKEN) to the ops of that run; AgentOpsError('unauthorized') for an unknown token. */
export type ResolveRun = (token: string) => Promise<AgentOps>;
