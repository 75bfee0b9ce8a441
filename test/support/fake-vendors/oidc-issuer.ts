// A fake of GitHub Actions' OIDC issuer (issue 35 item 3): a loopback server publishing its signing key
// as a JWKS at /.well-known/jwks (and its discovery document), and tokens signed with jose carrying
// the claims GitHub's documentation lists for a workflow run. `stranger` signs with a key it never
// publishes, for a token that must be refused.
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { closeServer, listenLoopback } from '../loopback.js';

export interface WorkflowClaims {
  repository: string;
  run_id: string;
  workflow_ref: string;
  aud: string;
  [claim: string]: unknown;
}

export interface FakeOidcIssuer {
  /** The issuer URL (`iss`), what FIXLOOP_ACTIONS_OIDC_ISSUER is set to. */
  readonly url: string;
  /** Requests for the key set so far. */
  readonly jwksReads: number;
  /** A token as the workflow's `core.getIDToken(audience)` returns it; `ttlSeconds` may be negative (expired). */
  issue(claims: WorkflowClaims, opts?: { ttlSeconds?: number; now?: Date; stranger?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeOidcIssuer(): Promise<FakeOidcIssuer> {
  const kid = 'fake-actions-key-1';
  const signing = await generateKeyPair('RS256', { extractable: true });
  const stranger = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(signing.publicKey)), kid, alg: 'RS256', use: 'sig' };
  let jwksReads = 0;
  let url = '';
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/jwks') {
      jwksReads++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    if (req.method === 'GET' && req.url === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: url,
          jwks_uri: `${url}/.well-known/jwks`,
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
      return;
    }
    res.writeHead(404).end();
  });
  url = await listenLoopback(server);
  return {
    url,
    get jwksReads() {
      return jwksReads;
    },
    async issue(claims, opts = {}) {
      const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
      const { aud, ...rest } = claims;
      const key: CryptoKey = opts.stranger ? stranger.privateKey : signing.privateKey;
      const [owner] = claims.repository.split('/');
      return new SignJWT({
        // The claims GitHub documents for a workflow's token, beside the ones the test sets.
        ref: 'refs/heads/agent/fix',
        sha: 'f'.repeat(40),
        repository_owner: owner,
        actor: 'fixloop[bot]',
        event_name: 'workflow_dispatch',
        run_number: '1',
        run_attempt: '1',
        job_workflow_ref: claims.workflow_ref,
        runner_environment: 'github-hosted',
        ...rest,
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(url)
        .setAudience(aud)
        .setSubject(`repo:${claims.repository}:ref:refs/heads/agent/fix`)
        .setJti(crypto.randomUUID())
        .setIssuedAt(now - 5)
        .setNotBefore(now - 5)
        .setExpirationTime(now + (opts.ttlSeconds ?? 300))
        .sign(key);
    },
    close: () => closeServer(server),
  };
}
