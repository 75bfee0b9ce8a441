// Issue 35 item 6 (SPEC R2): GitLab CI's ID tokens (a job's `id_tokens:`), checked with `jose` against
// the keys the instance publishes at `<issuer>/oauth/discovery/keys` (the `jwks_uri` of its OpenID
// configuration; fetched when needed, kept by jose, refetched for an unknown key id). Only the signature
// and the time window are checked here; what the claims must say is core/workflow-claims.ts's, with
// GitLab's claim names (GITLAB_ID_TOKEN_CLAIMS). The issuer is GITLAB_URL unless
// FIXLOOP_GITLAB_OIDC_ISSUER names another (the instance's external URL, when fixloop reaches it by
// another address).
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { IdentityTokenCheck } from '../app/exchange-workflow-token.js';
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
  const keys = createRemoteJWKSet(new URL(`${opts.issuer.replace(/\/+$/, '')}${GITLAB_JWKS_PATH}`), {
    timeoutDuration: opts.timeoutMs ?? 5_000,
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
  });
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keys, {
        // GitLab signs ID tokens with RS256; `none` or an HMAC keyed by a public key is refused.
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
  if (
    err instanceof errors.JWKSTimeout ||
    !(err instanceof errors.JOSEError) ||
    err instanceof errors.JWKSInvalid ||
    /JSON Web Key Set HTTP response/.test(err.message)
  )
    return { kind: 'unavailable', detail: "GitLab's signing keys could not be read just now; try again later" };
  if (
    err instanceof errors.JWSSignatureVerificationFailed ||
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JWKSMultipleMatchingKeys ||
    err instanceof errors.JOSEAlgNotAllowed
  )
    return { kind: 'refused', reason: 'bad_signature', detail: "the token is not signed by GitLab's keys" };
  return { kind: 'refused', reason: 'malformed', detail: 'the token is not a signed JWT' };
}
