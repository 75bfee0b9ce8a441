// Keeps a new GitHub App's credentials where loadConfig finds them at the next start (SPEC V3, L3;
// decision 0050): one 0600 file per value in `github-app/`, a 0700 directory beside the API token
// file. Each file is written to a temporary name and renamed, the id last, so a start never reads a
// half-written App.
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { AppCredentialStore, ConvertedApp } from '../app/github-setup.js';
import type { GitHubTarget } from '../core/app-manifest.js';
import { GITHUB_COM } from '../core/app-manifest.js';
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
