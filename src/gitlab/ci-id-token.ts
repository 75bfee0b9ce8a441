// Issue 35 item 6 (SPEC R2): GitLab CI's ID tokens (a job's `id_tokens:`), checked (src/hosts/identity-token.ts) against
// the keys the instance publishes at `<issuer>/oauth/discovery/keys` (the `jwks_uri` of its OpenID
// configuration; fetched when needed, kept by jose, refetched for an unknown key id). Only the signature
// and the time window are checked here; what the claims must say is core/workflow-claims.ts's, with
// GitLab's claim names (GITLAB_ID_TOKEN_CLAIMS). The issuer is GITLAB_URL unless
// FIXLOOP_GITLAB_OIDC_ISSUER names another (the instance's external URL, when fixloop reaches it by
// another address).
import { createIdentityTokenVerifier, type IdentityTokenCheck } from '../hosts/identity-token.js';
import { CLOCK_TOLERANCE_SECONDS, type ClaimNames } from '../core/workflow-claims.js';

/** GitLab's claims for the project and the pipeline; it has no workflow-file claim (one .gitlab-ci.yml). */
export const GITLAB_ID_TOKEN_CLAIMS: ClaimNames = { repository: 'project_path', run: 'pipeline_id', workflowRef: null };

/** Where an instance publishes its signing keys, under its URL. */
export const GITLAB_JWKS_PATH = '/oauth/discovery/keys';

export function createGitLabIdTokenVerifier(opts: {
  issuer: string;
  now: () => Date;
  /** How long a key-set fetch may take (ms; default 5 s). */
  timeoutMs?: number;
}): (token: string) => Promise<IdentityTokenCheck> {
  return createIdentityTokenVerifier({
    keysUrl: new URL(`${opts.issuer.replace(/\/+$/, '')}${GITLAB_JWKS_PATH}`),
    now: opts.now,
    clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS,
    keysOf: "GitLab's",
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  });
}
