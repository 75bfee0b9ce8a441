// Issue 35 items 3 and 6 (SPEC R2, I2): whether a CI workflow's identity token may be exchanged for the
// run token of the fixloop run that dispatched it. The signature is checked before this (the adapter, with
// the issuer's keys); this decides on the claims alone: the issuer, the audience (fixloop's agent URL),
// the token's time window, the repository, the workflow run and, where the CI names one, the workflow
// file. Which claim carries the repository, the run and the workflow file is the CI's own vocabulary:
// the adapter passes the names in (ClaimNames), so this rule serves every CI. Pure: time is a parameter.

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

/** Which claims of a CI's identity token say what: each CI names them its own way (the adapter says). */
export interface ClaimNames {
  /** The repository's `owner/name` (or `group/subgroup/project`). */
  repository: string;
  /** The id of the workflow run (or pipeline) the token was issued in. */
  run: string;
  /** The workflow file's reference (`<repository>/<dir>/<file>@<ref>`); null: the CI has no such claim. */
  workflowRef: string | null;
}

/** What the token must say, read from fixloop's own state and config — never from the token. */
export interface ExpectedWorkflow {
  /** The names of the claims read (the adapter's). */
  claims: ClaimNames;
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

/** The workflow run id a token claims (in the claim `name`), or null when it names none in a usable form. */
export function claimedRunId(claims: Readonly<Record<string, unknown>>, name: string): string | null {
  const id = claims[name];
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
  const names = expected.claims;
  const { iss, aud, exp, nbf } = claims;
  const repository = claims[names.repository];
  if (typeof iss !== 'string' || typeof exp !== 'number' || typeof repository !== 'string')
    return refuse('malformed', `the token lacks iss, exp or ${names.repository}`);
  if (iss !== expected.issuer) return refuse('wrong_issuer', `the token was issued by ${iss}, not ${expected.issuer}`);
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (!audiences.includes(expected.audience))
    return refuse('wrong_audience', `the token's audience is not fixloop's agent URL ${expected.audience}`);
  const seconds = now.getTime() / 1000;
  if (exp + CLOCK_TOLERANCE_SECONDS <= seconds) return refuse('expired', 'the token has expired');
  if (typeof nbf === 'number' && nbf - CLOCK_TOLERANCE_SECONDS > seconds)
    return refuse('not_yet_valid', 'the token is not valid yet');
  const runId = claimedRunId(claims, names.run);
  if (runId === null || runId !== expected.workflowRunId)
    return refuse('unknown_run', 'the token names no workflow run fixloop dispatched and still follows');
  if (repository.toLowerCase() !== expected.repository.toLowerCase())
    return refuse('wrong_repository', `the token is for ${repository}, not the run's repository`);
  // A CI with no workflow-file claim (one pipeline file per repository): the run id binds the pipeline.
  if (names.workflowRef === null) return { kind: 'accept' };
  const workflowRef = claims[names.workflowRef];
  if (typeof workflowRef !== 'string') return refuse('malformed', `the token lacks ${names.workflowRef}`);
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

/**
 * The issuer a token says it is from (`iss` of its payload), read without checking anything: only to
 * pick whose keys check it. Null when the token is not a JWT with a string `iss`.
 */
export function unverifiedIssuer(token: string): string | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1]!.length > 16_384) return null;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    const iss = (payload as { iss?: unknown } | null)?.iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}
