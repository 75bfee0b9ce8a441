// Triage (SPEC T1–T3): before any attempt is claimed, whether a red result is something the agent
// can fix. An approval gate only a person can clear; a check red on the base branch too, which the
// pull request did not break; a runner that died or a check known to be flaky, which a re-run
// answers for much less than a model run. Anything else goes to the agent. Pure: facts in, a verdict out.

/** Output lines that mean the machine failed, not the code (T2). Matched case-insensitively. */
export const INFRASTRUCTURE_SIGNATURES: ReadonlyArray<readonly [string, RegExp]> = [
  ['runner shutdown', /the runner has received a shutdown signal/i],
  ['runner lost', /lost communication with the server/i],
  ['disk full', /no space left on device|\bENOSPC\b/i],
  ['operation cancelled', /the operation was cancell?ed/i],
  ['registry rate limit', /toomanyrequests: you have reached your pull rate limit/i],
];

export interface TriageInput {
  /** The red result judged. */
  result: { name: string; conclusion: string | null; output: string };
  /** Checks of this pull request seen red and then green on one commit (T2: flaky). */
  flakyChecks: readonly string[];
  /** The base branch's head as last read: its failing checks; null when not known. */
  base: { ref: string; failing: readonly string[] } | null;
  /**
   * Checks whose very result (this run, offered again) was held back because the base failed them
   * (T1): it was produced against the failing base, so it stays held whatever the base does later.
   */
  heldOnBase?: readonly string[];
}

export type TriageVerdict =
  | { kind: 'agent' }
  | { kind: 'approval_gate'; detail: string }
  | { kind: 'red_on_base'; detail: string }
  | { kind: 'transient'; why: 'infrastructure' | 'flaky'; detail: string };

export function triage(input: TriageInput): TriageVerdict {
  const name = input.result.name.trim();
  // T3: a run waiting for a person's approval; resuming the agent cannot clear it.
  if (input.result.conclusion === 'action_required')
    return { kind: 'approval_gate', detail: `${name} is waiting for a person to approve it (action_required)` };
  // T1: what the pull request did not break, the agent cannot fix.
  if (input.base && input.base.failing.some((f) => f.trim() === name))
    return { kind: 'red_on_base', detail: `${name} is failing on ${input.base.ref} too` };
  if (input.heldOnBase?.some((f) => f.trim() === name))
    return {
      kind: 'red_on_base',
      detail: `${name} failed on the base too when this result was judged; a new run decides again`,
    };
  // T2: the machine, not the code.
  const sign = INFRASTRUCTURE_SIGNATURES.find(([, re]) => re.test(input.result.output));
  if (sign) return { kind: 'transient', why: 'infrastructure', detail: `${name}: ${sign[0]}` };
  if (input.flakyChecks.some((f) => f.trim() === name))
    return { kind: 'transient', why: 'flaky', detail: `${name} went red then green on one commit before` };
  return { kind: 'agent' };
}
