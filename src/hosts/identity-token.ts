// A CI's identity token (GitHub Actions' OIDC token, GitLab CI's ID token), checked with `jose` against
// the keys its issuer publishes (fetched when needed, kept by jose, refetched for an unknown key id).
// Only the signature and the token's time window are checked here; what the claims must say is
// core/workflow-claims.ts's. Each host gives where its keys are and its own words. jose is loaded on the
// first token, not at start-up: most installs run no workflow runner, and its ~50 modules cost memory.
import type * as Jose from 'jose';

/** What the signature check says of a token: its claims, or why it could not be trusted. */
export type IdentityTokenCheck =
  | { kind: 'verified'; claims: Record<string, unknown> }
  | { kind: 'refused'; reason: 'bad_signature' | 'expired' | 'not_yet_valid' | 'malformed'; detail: string }
  | { kind: 'unavailable'; detail: string };

export function createIdentityTokenVerifier(opts: {
  /** The issuer's key set (JWKS) address. */
  keysUrl: URL;
  now: () => Date;
  /** Seconds of clock difference allowed on `exp` and `nbf`. */
  clockToleranceSeconds: number;
  /** Whose keys, in the refusals' words: "the issuer's", "GitLab's". */
  keysOf: string;
  /** How long a key-set fetch may take (ms; default 5 s). */
  timeoutMs?: number;
}): (token: string) => Promise<IdentityTokenCheck> {
  let loaded: Promise<{ jose: typeof Jose; keys: ReturnType<typeof Jose.createRemoteJWKSet> }> | undefined;
  const load = () =>
    (loaded ??= import('jose').then((jose) => ({
      jose,
      keys: jose.createRemoteJWKSet(opts.keysUrl, {
        timeoutDuration: opts.timeoutMs ?? 5_000,
        cooldownDuration: 30_000,
        cacheMaxAge: 10 * 60_000,
      }),
    })));
  return async (token) => {
    const { jose, keys } = await load();
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        // Both CIs sign with RS256; anything else (`none`, an HMAC keyed by a public key) is refused.
        algorithms: ['RS256'],
        currentDate: opts.now(),
        clockTolerance: opts.clockToleranceSeconds,
      });
      return { kind: 'verified', claims: payload as Record<string, unknown> };
    } catch (err) {
      return judged(jose.errors, err, opts.keysOf);
    }
  };
}

function judged(errors: typeof Jose.errors, err: unknown, keysOf: string): IdentityTokenCheck {
  if (err instanceof errors.JWTExpired) return { kind: 'refused', reason: 'expired', detail: 'the token has expired' };
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'nbf')
    return { kind: 'refused', reason: 'not_yet_valid', detail: 'the token is not valid yet' };
  if (err instanceof errors.JWKSTimeout || !(err instanceof errors.JOSEError) || isKeySetFetch(errors, err))
    return { kind: 'unavailable', detail: `${keysOf} signing keys could not be read just now; try again later` };
  if (
    err instanceof errors.JWSSignatureVerificationFailed ||
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JWKSMultipleMatchingKeys ||
    err instanceof errors.JOSEAlgNotAllowed
  )
    return { kind: 'refused', reason: 'bad_signature', detail: `the token is not signed by ${keysOf} keys` };
  return { kind: 'refused', reason: 'malformed', detail: 'the token is not a signed JWT' };
}

/** jose's own error for a key set answered with something other than 200 and a JWKS. */
function isKeySetFetch(errors: typeof Jose.errors, err: Jose.errors.JOSEError): boolean {
  return err instanceof errors.JWKSInvalid || /JSON Web Key Set HTTP response/.test(err.message);
}
