// Issue 35 item 3 (SPEC R2): GitHub Actions' OIDC tokens, checked with `jose` against the keys the
// issuer publishes at `<issuer>/.well-known/jwks` (fetched when needed, kept by jose, refetched for an
// unknown key id). Only the signature and the token's time window are checked here; what the claims
// must say is core/workflow-claims.ts's. The issuer URL is configurable (FIXLOOP_ACTIONS_OIDC_ISSUER)
// so tests can stand up their own.
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { IdentityTokenCheck } from '../app/exchange-workflow-token.js';
import { CLOCK_TOLERANCE_SECONDS } from '../core/workflow-claims.js';

/** Where a repository's workflow files live, as `workflow_ref` names them. */
export const ACTIONS_WORKFLOWS_DIR = '.github/workflows';

export function createActionsOidcVerifier(opts: {
  issuer: string;
  now: () => Date;
  /** How long a key-set fetch may take (ms; default 5 s). */
  timeoutMs?: number;
}): (token: string) => Promise<IdentityTokenCheck> {
  const keys = createRemoteJWKSet(new URL(`${opts.issuer.replace(/\/+$/, '')}/.well-known/jwks`), {
    timeoutDuration: opts.timeoutMs ?? 5_000,
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
  });
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keys, {
        // GitHub signs with RS256; anything else (`none`, an HMAC keyed by a public key) is refused.
        algorithms: ['RS256'],
        currentDate: opts.now(),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      return { kind: 'verified', claims: payload as Record<string, unknown> };
    } catch (err) {
      return judged(err);
    }
  };
}

function judged(err: unknown): IdentityTokenCheck {
  if (err instanceof errors.JWTExpired) return { kind: 'refused', reason: 'expired', detail: 'the token has expired' };
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'nbf')
    return { kind: 'refused', reason: 'not_yet_valid', detail: 'the token is not valid yet' };
  if (err instanceof errors.JWKSTimeout || !(err instanceof errors.JOSEError) || isKeySetFetch(err))
    return { kind: 'unavailable', detail: "the issuer's keys could not be read just now; try again later" };
  if (
    err instanceof errors.JWSSignatureVerificationFailed ||
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JWKSMultipleMatchingKeys ||
    err instanceof errors.JOSEAlgNotAllowed
  )
    return { kind: 'refused', reason: 'bad_signature', detail: "the token is not signed by the issuer's keys" };
  return { kind: 'refused', reason: 'malformed', detail: 'the token is not a signed JWT' };
}

/** jose's own error for a key set answered with something other than 200 and a JWKS. */
function isKeySetFetch(err: errors.JOSEError): boolean {
  return err instanceof errors.JWKSInvalid || /JSON Web Key Set HTTP response/.test(err.message);
}
