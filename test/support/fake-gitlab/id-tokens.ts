// The fake GitLab as an OIDC issuer of CI ID tokens (issue 35 item 6): its URL is the issuer, its
// signing key is published as a JWKS at `/oauth/discovery/keys` (the `jwks_uri` of its
// `/.well-known/openid-configuration`), and `issue` signs a token with jose carrying the claims GitLab
// documents for a job's `id_tokens:` — the test sets the project, pipeline and audience. `stranger`
// signs with a key never published. Keys are made on first use, so a fake that never issues pays nothing.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface IdTokenClaims {
  aud: string;
  project_path: string;
  pipeline_id: string;
  [claim: string]: unknown;
}

export interface FakeIdTokens {
  /** Requests for the key set so far. */
  readonly jwksReads: number;
  /** Answers `/oauth/discovery/keys` and `/.well-known/openid-configuration`; null for any other path. */
  answer(path: string): Promise<{ status: number; body: unknown } | null>;
  /** A token as a job's `id_tokens:` variable holds it; `ttlSeconds` may be negative (expired). */
  issue(claims: IdTokenClaims, opts?: { ttlSeconds?: number; now?: Date; stranger?: boolean }): Promise<string>;
}

export function fakeIdTokens(issuer: () => string): FakeIdTokens {
  const kid = 'fake-gitlab-ci-key-1';
  let keys: Promise<{ signing: CryptoKey; stranger: CryptoKey; jwk: JWK }> | null = null;
  const keysOnce = () =>
    (keys ??= (async () => {
      const signing = await generateKeyPair('RS256', { extractable: true });
      const stranger = await generateKeyPair('RS256', { extractable: true });
      const jwk: JWK = { ...(await exportJWK(signing.publicKey)), kid, alg: 'RS256', use: 'sig', kty: 'RSA' };
      return { signing: signing.privateKey, stranger: stranger.privateKey, jwk };
    })());
  let jwksReads = 0;
  return {
    get jwksReads() {
      return jwksReads;
    },
    async answer(path) {
      if (path === '/oauth/discovery/keys') {
        jwksReads++;
        return { status: 200, body: { keys: [(await keysOnce()).jwk] } };
      }
      if (path === '/.well-known/openid-configuration')
        return {
          status: 200,
          body: {
            issuer: issuer(),
            jwks_uri: `${issuer()}/oauth/discovery/keys`,
            id_token_signing_alg_values_supported: ['RS256'],
          },
        };
      return null;
    },
    async issue(claims, opts = {}) {
      const { signing, stranger } = await keysOnce();
      const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
      const { aud, ...rest } = claims;
      const [namespace] = claims.project_path.split('/');
      return new SignJWT({
        // The claims GitLab documents for a job's ID token, beside the ones the test sets.
        namespace_id: '72',
        namespace_path: namespace,
        project_id: '7301',
        user_id: '1',
        user_login: 'fixloop-bot',
        pipeline_source: 'api',
        job_id: '501',
        ref: 'agent/fix',
        ref_type: 'branch',
        ref_path: 'refs/heads/agent/fix',
        ref_protected: 'false',
        runner_environment: 'gitlab-hosted',
        ...rest,
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(issuer())
        .setAudience(aud)
        .setSubject(`project_path:${claims.project_path}:ref_type:branch:ref:agent/fix`)
        .setJti(crypto.randomUUID())
        .setIssuedAt(now - 5)
        .setNotBefore(now - 5)
        .setExpirationTime(now + (opts.ttlSeconds ?? 300))
        .sign(opts.stranger ? stranger : signing);
    },
  };
}
