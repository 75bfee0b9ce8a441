// Issue 35 item 3 (SPEC R2, I2): whether a CI workflow's identity token may be exchanged for the run
// token of the fixloop run that dispatched it. The signature is checked before this (the adapter, with
// the issuer's keys); this decides on the claims alone: the issuer, the audience (fixloop's agent URL),
// the token's time window, the repository, the workflow run and the workflow file. Pure: time is a parameter.

/** Why an identity token was refused; one closed list, each said to the caller with its detail. */
export const WORKFLOW_CLAIM_REFUSALS = [
  'malformed',
  'wrong_issuer',
  'wrong_audience',
  'expired',
  'not_yet_valid',
  'unknown_run',
  'wrong_repository',
  'wrong_workflow',
] as const;
export type WorkflowClaimRefusal = (typeof WORKFLOW_CLAIM_REFUSALS)[number];

export type WorkflowClaimsVerdict =
  { kind: 'accept' } | { kind: 'refuse'; reason: WorkflowClaimRefusal; detail: string };

/** What the token must say, read from fixloop's own state and config — never from the token. */
export interface ExpectedWorkflow {
  issuer: string;
  /** fixloop's agent URL (FIXLOOP_AGENT_URL), what the workflow asked its token for. */
  audience: string;
  /** `owner/name` of the run's Task. */
  repository: string;
  /** The workflow run id fixloop recorded when it dispatched the run. */
  workflowRunId: string;
  /** The configured workflow: a file name (`fixloop-agent.yml`), or a numeric id (no file to compare). */
  workflow: string;
  /** Where the host keeps a repository's workflow files, relative to its root (the adapter says). */
  workflowsDir: string;
}

/** Leeway for clocks that differ a little between the issuer and fixloop, in seconds. */
export const CLOCK_TOLERANCE_SECONDS = 60;

const refuse = (reason: WorkflowClaimRefusal, detail: string): WorkflowClaimsVerdict => ({
  kind: 'refuse',
  reason,
  detail,
});

/** The workflow run id a token claims (`run_id`), or null when it names none in a usable form. */
export function claimedRunId(claims: Readonly<Record<string, unknown>>): string | null {
  const id = claims.run_id;
  if (typeof id === 'string' && /^[1-9]\d{0,19}$/.test(id)) return id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return String(id);
  return null;
}

/** Whether the claims of a signature-checked token bind it to the expected workflow run, at `now`. */
export function workflowClaimsVerdict(
  claims: Readonly<Record<string, unknown>>,
  expected: ExpectedWorkflow,
  now: Date,
): WorkflowClaimsVerdict {
  const { iss, aud, exp, nbf, repository, workflow_ref: workflowRef } = claims;
  if (typeof iss !== 'string' || typeof exp !== 'number' || typeof repository !== 'string')
    return refuse('malformed', 'the token lacks iss, exp or repository');
  if (iss !== expected.issuer) return refuse('wrong_issuer', `the token was issued by ${iss}, not ${expected.issuer}`);
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.includes(expected.audience))
    return refuse('wrong_audience', `the token's audience is not fixloop's agent URL ${expected.audience}`);
  const seconds = now.getTime() / 1000;
  if (exp + CLOCK_TOLERANCE_SECONDS <= seconds) return refuse('expired', 'the token has expired');
  if (typeof nbf === 'number' && nbf - CLOCK_TOLERANCE_SECONDS > seconds)
    return refuse('not_yet_valid', 'the token is not valid yet');
  const runId = claimedRunId(claims);
  if (runId === null || runId !== expected.workflowRunId)
    return refuse('unknown_run', 'the token names no workflow run fixloop dispatched and still follows');
  if (repository.toLowerCase() !== expected.repository.toLowerCase())
    return refuse('wrong_repository', `the token is for ${repository}, not the run's repository`);
  if (typeof workflowRef !== 'string') return refuse('malformed', 'the token lacks workflow_ref');
  const file = workflowFileOf(workflowRef, expected.repository, expected.workflowsDir);
  if (file === null) return refuse('wrong_workflow', "the token's workflow is not a workflow of the run's repository");
  if (/^\d+$/.test(expected.workflow)) return { kind: 'accept' }; // an id: the run id above binds the workflow
  if (file !== expected.workflow)
    return refuse('wrong_workflow', `the token's workflow is ${file}, not ${expected.workflow}`);
  return { kind: 'accept' };
}

/**
 * The workflow file `workflow_ref` names directly in `dir` of `repository`:
 * `owner/name/<dir>/fixloop-agent.yml@refs/heads/main` → `fixloop-agent.yml`; else null.
 */
export function workflowFileOf(workflowRef: string, repository: string, dir: string): string | null {
  const at = workflowRef.indexOf('@');
  const path = at === -1 ? workflowRef : workflowRef.slice(0, at);
  const prefix = `${repository.toLowerCase()}/${dir.toLowerCase()}/`;
  if (!path.toLowerCase().startsWith(prefix)) return null;
  const file = path.slice(prefix.length);
  return /^[\w.-]+\.ya?ml$/.test(file) ? file : null;
}
