// I5, L1 (issue 35): a run's sign of life is a call or a push. An agent that works either calls
// fixloop with its run token (an MCP tool, the run API) or pushes a fix to the pull request's branch —
// many agents teams run (a custom script, aider, a cloud agent answering a mention) never speak
// fixloop's protocol at all. So a run that ends without a call but after which the pull request's head
// moved off the commit it was dispatched for took action: its outcome is inferred as `action_taken`,
// and the new head is its progress (I3). Only a run with neither files `agent_unreachable`: it most
// likely could not reach fixloop's MCP server or sign in to its model, a retry would fail the same way
// and spend the budget, so the Task's one notice is filed instead (decision 0022, decision 0063).

export interface EndedRun {
  runId: number;
  /** Only an automatic attempt's run is retried into the budget; a person's run is theirs to read. */
  attemptId: number | null;
  agentSeenAt: string | null;
  /** The attempt's first-write outcome (I2); an outcome can only come from a call, but is checked anyway. */
  outcome: string | null;
  state: 'completed' | 'failed';
  exitCode: number | null;
  /** The runner's own words on the end (a vendor state, a timeout); replaces the guess at the cause. */
  detail?: string | undefined;
  /** R2: the runner saw the agent's session wait for its user. */
  needsPerson?: boolean | undefined;
}

/** The pull request's head when the run was dispatched, and as the host (or the ledger) has it now. */
export interface RunHeads {
  dispatched: string | null;
  now: string | null;
}

export type SignOfLife =
  | { kind: 'called' }
  | { kind: 'pushed'; headSha: string; detail: string }
  | { kind: 'none'; detail: string }
  | { kind: 'waiting'; detail: string };

export function signOfLife(run: EndedRun, heads: RunHeads, apiUrl: string): SignOfLife {
  if (run.attemptId === null || run.outcome !== null) return { kind: 'called' };
  const exit = run.exitCode === null ? 'no exit status' : `exit code ${run.exitCode}`;
  const ended = `run ${run.runId} ended ${run.state} (${exit})`;
  if (run.needsPerson) {
    return { kind: 'waiting', detail: `${ended} without an outcome: ${run.detail ?? 'its agent waits for a person'}` };
  }
  if (run.agentSeenAt !== null) return { kind: 'called' };
  if (heads.dispatched && heads.now && heads.dispatched.toLowerCase() !== heads.now.toLowerCase()) {
    return {
      kind: 'pushed',
      headSha: heads.now,
      detail:
        `${ended} without calling fixloop, but the branch moved from ${heads.dispatched.slice(0, 12)} to ` +
        `${heads.now.slice(0, 12)} after it was dispatched: its outcome is taken as action_taken`,
    };
  }
  if (run.detail) {
    return {
      kind: 'none',
      detail: `${ended} without a single call from its agent and without a push to the branch: ${run.detail}`,
    };
  }
  return {
    kind: 'none',
    detail:
      `${ended} without a single call from its agent and without a push to the branch; ` +
      `most likely its MCP entry could not reach ${apiUrl.replace(/\/+$/, '')}/mcp with its run token ` +
      `(check FIXLOOP_PUBLIC_URL and the runner's MCP configuration), or it could not sign in to its model ` +
      `(see the run log)`,
  };
}
