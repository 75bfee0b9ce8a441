// Who is calling the fake GitHub: a personal token, an installation token it issued, or the App
// itself (an RS256 JWT checked against the App's public key, as GitHub does). Unknown or expired
// credentials are simply nobody; routes decide what nobody may do.
import { createVerify, generateKeyPairSync } from 'node:crypto';
import type { FakeState } from './state.js';

export type Caller =
  | { kind: 'user'; login: string }
  | { kind: 'installation'; installationId: number; account: string }
  | { kind: 'app'; appId: number };

export function identify(state: FakeState, authorization: string | undefined): Caller | null {
  if (authorization === undefined) return null;
  const match = /^(token|bearer)\s+(\S+)$/i.exec(authorization.trim());
  if (match === null) return null;
  const credential = match[2]!;
  const login = state.userTokens[credential];
  if (login !== undefined) return { kind: 'user', login };
  const installation = state.installationTokens[credential];
  if (installation !== undefined) {
    return Date.parse(installation.expiresAt) > state.now().getTime()
      ? { kind: 'installation', installationId: installation.installationId, account: installation.account }
      : null;
  }
  return appFromJwt(state, credential);
}

function appFromJwt(state: FakeState, jwt: string): Caller | null {
  const app = state.app;
  const parts = jwt.split('.');
  if (app === null || parts.length !== 3) return null;
  const [header, payload, signature] = parts as [string, string, string];
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${header}.${payload}`);
  if (!verifier.verify(app.publicKey, Buffer.from(signature, 'base64url'))) return null;
  let claims: { iss?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return null;
  }
  const nowSeconds = state.now().getTime() / 1000;
  if (String(claims.iss) !== String(app.id) || typeof claims.exp !== 'number' || claims.exp < nowSeconds) return null;
  return { kind: 'app', appId: app.id };
}

/** A fresh RSA key pair for a fake App: GitHub hands out PKCS#1 PEM private keys. */
export function appKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
