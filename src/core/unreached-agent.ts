// I5, L1: a run whose agent never reached fixloop. An agent that works calls fixloop at least once
// with its run token (an MCP tool, or the run API); one whose run ends without a single call most
// likely could not connect to fixloop's MCP server or sign in to its model, and a retry would fail
// the same way and spend the budget. So such a run files the Task's one notice instead of leaving
// its attempt to be retried (decision 0022).

export interface EndedRun {
  runId: number;
  /** Only an automatic attempt's run is retried into the budget; a person's run is theirs to read. */
  attemptId: number | null;
  agentSeenAt: string | null;
  /** The attempt's first-write outcome (I2); an outcome can only come from a call, but is checked anyway. */
  outcome: string | null;
  state: 'completed' | 'failed';
  exitCode: number | null;
}

export type AgentReach = { kind: 'reached' } | { kind: 'never_reached'; detail: string };

export function agentReach(run: EndedRun, apiUrl: string): AgentReach {
  if (run.attemptId === null || run.agentSeenAt !== null || run.outcome !== null) return { kind: 'reached' };
  const exit = run.exitCode === null ? 'no exit status' : `exit code ${run.exitCode}`;
  return {
    kind: 'never_reached',
    detail:
      `run ${run.runId} ended ${run.state} (${exit}) without a single call from its agent; ` +
      `most likely its MCP entry could not reach ${apiUrl.replace(/\/+$/, '')}/mcp with its run token ` +
      `(check FIXLOOP_PUBLIC_URL and the runner's MCP configuration), or it could not sign in to its model ` +
      `(see the run log)`,
  };
}
