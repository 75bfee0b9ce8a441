// The GitHub App's credentials as the setup page stores them (SPEC V3, M5; decision 0050): 0600 files
// in `github-app/`, a 0700 directory beside the API token file. loadConfig reads them when the
// environment does not name an App (APP_ID, PRIVATE_KEY, PRIVATE_KEY_PATH) or a webhook secret
// (WEBHOOK_SECRET, WEBHOOK_SECRET_FILE): the environment always wins.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The directory's name inside the data directory. */
export const GITHUB_APP_DIR = 'github-app';

/** One file per value: what loadConfig reads, and what the setup writes. */
export const GITHUB_APP_FILES = {
  appId: 'app-id',
  privateKey: 'private-key.pem',
  webhookSecret: 'webhook-secret',
  clientId: 'client-id',
  clientSecret: 'client-secret',
  /** GitHub's REST base URL the App lives on (an Enterprise Server's), when it is not api.github.com. */
  apiUrl: 'api-url',
  /** Not secret: the App's name, slug, page and owner, for the setup page to show again. */
  about: 'app.json',
  /** A setup started on the command line (`fixloop setup github`): its state, GitHub and expiry, until GitHub's redirect. */
  pending: 'pending-setup.json',
  /** The page that posts the manifest to GitHub, for a browser on any machine (`fixloop setup github`). */
  form: 'create-app.html',
} as const;

/** `<directory of the API token file>/github-app`, absolute. */
export function githubAppDir(apiTokenFile: string): string {
  return join(dirname(resolve(apiTokenFile)), GITHUB_APP_DIR);
}

export type StoredAppFile = keyof typeof GITHUB_APP_FILES;

export function storedAppPath(dir: string, file: StoredAppFile): string {
  return join(dir, GITHUB_APP_FILES[file]);
}

/** Whether a setup has stored an App in `dir` (its id file is the marker, written last). */
export function hasStoredApp(dir: string): boolean {
  return existsSync(storedAppPath(dir, 'appId'));
}

/** What the setup page shows of a stored App; null when there is none or it cannot be read. */
export interface StoredAppAbout {
  id: number;
  slug: string;
  name: string;
  htmlUrl: string;
  owner: string | null;
}

export function readStoredAppAbout(dir: string): StoredAppAbout | null {
  try {
    const a = JSON.parse(readFileSync(storedAppPath(dir, 'about'), 'utf8')) as Partial<StoredAppAbout>;
    if (typeof a.id !== 'number' || typeof a.htmlUrl !== 'string' || typeof a.name !== 'string') return null;
    return { id: a.id, slug: String(a.slug ?? ''), name: a.name, htmlUrl: a.htmlUrl, owner: a.owner ?? null };
  } catch {
    return null;
  }
}
