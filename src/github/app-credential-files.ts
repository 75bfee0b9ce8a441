// Keeps a new GitHub App's credentials where loadConfig finds them at the next start (SPEC V3, L3;
// decision 0050): one 0600 file per value in `github-app/`, a 0700 directory beside the API token
// file. Each file is written to a temporary name and renamed, the id last, so a start never reads a
// half-written App.
import { timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { AppCredentialStore, ConvertedApp, PendingSetup } from './setup.js';
import type { GitHubTarget } from './app-manifest.js';
import { GITHUB_COM } from './app-manifest.js';
import { storedAppPath, type StoredAppFile } from '../config/github-app-files.js';

export function createAppCredentialFiles(dir: string): AppCredentialStore {
  return {
    async save(app, target) {
      writeAppFiles(dir, app, target);
      return { dir };
    },
  };
}

export function writeAppFiles(dir: string, app: ConvertedApp, target: GitHubTarget): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const put = (file: StoredAppFile, text: string | null) => {
    const path = storedAppPath(dir, file);
    if (text === null) {
      rmSync(path, { force: true }); // an earlier App's value must not outlive it
      return;
    }
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, path);
  };
  // The id marks a stored App: it goes last, and away first, so no start pairs it with another App's key.
  rmSync(storedAppPath(dir, 'appId'), { force: true });
  put('privateKey', app.pem);
  put('webhookSecret', app.webhookSecret);
  put('clientId', app.clientId);
  put('clientSecret', app.clientSecret);
  put('apiUrl', target.apiUrl === GITHUB_COM.apiUrl ? null : target.apiUrl);
  put(
    'about',
    JSON.stringify(
      { id: app.id, slug: app.slug, name: app.name, htmlUrl: app.htmlUrl, owner: app.owner?.login ?? null },
      null,
      2,
    ),
  );
  put('appId', String(app.id));
}

/** Keeps a command-line setup's state (0600), so the callback of a running fixloop or `--code` can check it. */
export function writePendingSetup(dir: string, pending: PendingSetup, formHtml: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  writeFileSync(storedAppPath(dir, 'pending'), JSON.stringify(pending), { mode: 0o600 });
  const form = storedAppPath(dir, 'form');
  writeFileSync(form, formHtml, { mode: 0o600 });
  return form;
}

/** The pending command-line setup, if there is one and it has not expired at `nowMs`. */
export function readPendingSetup(dir: string, nowMs: number): PendingSetup | null {
  try {
    const p = JSON.parse(readFileSync(storedAppPath(dir, 'pending'), 'utf8')) as Partial<PendingSetup>;
    if (typeof p.state !== 'string' || typeof p.expiresAt !== 'number' || p.expiresAt <= nowMs) return null;
    if (typeof p.webUrl !== 'string' || typeof p.apiUrl !== 'string') return null;
    return { state: p.state, expiresAt: p.expiresAt, webUrl: p.webUrl, apiUrl: p.apiUrl };
  } catch {
    return null;
  }
}

/**
 * Takes the pending command-line setup whose state is `state` (once: its files are removed), or
 * null — none, expired, or another state.
 */
export function takePendingSetup(dir: string, state: string, nowMs: number): PendingSetup | null {
  const p = readPendingSetup(dir, nowMs);
  if (p === null) return null;
  const a = Buffer.from(p.state);
  const b = Buffer.from(state);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
  rmSync(storedAppPath(dir, 'pending'), { force: true });
  rmSync(storedAppPath(dir, 'form'), { force: true });
  return p;
}
