// Issue 35 item 3 (SPEC R2): GitHub Actions' OIDC tokens, checked against the keys the issuer publishes
// at `<issuer>/.well-known/jwks` (src/hosts/identity-token.ts: jose, RS256 only, the time window).
// What the claims must say is core/workflow-claims.ts's. The issuer URL is configurable
// (FIXLOOP_ACTIONS_OIDC_ISSUER) so tests can stand up their own.
import { createIdentityTokenVerifier, type IdentityTokenCheck } from '../hosts/identity-token.js';
import { CLOCK_TOLERANCE_SECONDS } from '../core/workflow-claims.js';

/** Where a repository's workflow files live, as `workflow_ref` names them. */
export const ACTIONS_WORKFLOWS_DIR = '.github/workflows';

export function createActionsOidcVerifier(opts: {
  issuer: string;
  now: () => Date;
  /** How long a key-set fetch may take (ms; default 5 s). */
  timeoutMs?: number;
}): (token: string) => Promise<IdentityTokenCheck> {
  return createIdentityTokenVerifier({
    keysUrl: new URL(`${opts.issuer.replace(/\/+$/, '')}/.well-known/jwks`),
    now: opts.now,
    clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS,
    keysOf: "the issuer's",
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  });
}
