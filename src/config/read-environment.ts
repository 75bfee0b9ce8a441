// The environment as validated (SPEC M5, L3): blank values unset, the `_FILE` twins of secrets read,
// and the GitHub App the setup page stored (decision 0050) used where the environment names none.
import { readFileSync, statSync } from 'node:fs';
import { ConfigError, unreadableFile } from './errors.js';
import { githubAppDir, hasStoredApp, storedAppPath } from './github-app-files.js';
import { DEFAULT_API_TOKEN_FILE, envSchema, SECRET_FILE_VARIABLES, type EnvConfig } from './env-schema.js';

export function parseEnv(env: NodeJS.ProcessEnv, warnings: string[]): EnvConfig {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(envSchema.shape)) {
    const value = blankToUndefined(env[name]);
    if (value !== undefined) picked[name] = value;
  }
  const storedSecret = useStoredApp(picked);
  readSecretFiles(picked);
  if (storedSecret !== null) addStoredSecret(picked, storedSecret, warnings);
  const result = envSchema.safeParse(picked);
  if (!result.success) throw new ConfigError('environment', result.error);
  if (result.data.WEBHOOK_SECRET === undefined)
    warnings.push(
      'no GitHub webhook secret yet: GitHub webhooks are answered 503 until you connect GitHub on the setup page (/setup, or `fixloop setup github`) or set WEBHOOK_SECRET',
    );
  return result.data;
}

/**
 * V3 (decision 0050): the App the setup page stored, as if its files were named by the environment —
 * APP_ID and PRIVATE_KEY_PATH when no App is set there, GITHUB_API_URL when neither it nor GHE_HOST
 * is, WEBHOOK_SECRET_FILE when no webhook secret is. Returns the stored secret's path when the
 * environment has its own secret (both are then accepted), else null.
 */
function useStoredApp(picked: Record<string, string>): string | null {
  const dir = githubAppDir(picked.FIXLOOP_API_TOKEN_FILE ?? DEFAULT_API_TOKEN_FILE);
  if (!hasStoredApp(dir)) return null;
  const file = (name: Parameters<typeof storedAppPath>[1]) => storedAppPath(dir, name);
  const need = (name: Parameters<typeof storedAppPath>[1]) => {
    if (!isFile(file(name)))
      throw ConfigError.at(
        dir,
        [GITHUB_APP_FILE_WORDS],
        `${file(name)} is missing: the GitHub App was stored only in part; connect GitHub again on the setup page, or remove ${dir}`,
      );
    return file(name);
  };
  if (picked.APP_ID === undefined && picked.PRIVATE_KEY === undefined && picked.PRIVATE_KEY_PATH === undefined) {
    picked.APP_ID = readFileSync(need('appId'), 'utf8').trim();
    picked.PRIVATE_KEY_PATH = need('privateKey');
    if (picked.GITHUB_API_URL === undefined && picked.GHE_HOST === undefined && isFile(file('apiUrl')))
      picked.GITHUB_API_URL = readFileSync(file('apiUrl'), 'utf8').trim();
  }
  if (!isFile(file('webhookSecret'))) return null;
  if (picked.WEBHOOK_SECRET === undefined && picked.WEBHOOK_SECRET_FILE === undefined) {
    picked.WEBHOOK_SECRET_FILE = file('webhookSecret');
    return null;
  }
  return file('webhookSecret');
}

/** The environment's secret still signs and verifies; the stored App's is accepted too, said once per start. */
function addStoredSecret(picked: Record<string, string>, path: string, warnings: string[]): void {
  const stored = readFileSync(path, 'utf8').trim();
  const own = (picked.WEBHOOK_SECRET ?? '').split(',').map((s) => s.trim());
  if (stored === '' || own.includes(stored)) return;
  picked.WEBHOOK_SECRET = [...own, stored].join(',');
  warnings.push(
    `WEBHOOK_SECRET is set, and the GitHub App stored by the setup page has its own webhook secret (${path}): deliveries signed with either are accepted. Unset WEBHOOK_SECRET (or set it to the stored one) to keep only the App's.`,
  );
}

/** How a stored App's files are named in a ConfigError. */
const GITHUB_APP_FILE_WORDS = 'GitHub App files';

/**
 * The `_FILE` convention (L3): a secret read from the file a variable names, so it never sits in the
 * process's environment; validated afterwards exactly as the variable would be. FIXLOOP_API_TOKEN_FILE
 * keeps its meaning (where a generated token is kept) and is read as the token when it exists.
 */
function readSecretFiles(picked: Record<string, string>): void {
  const read = (fileVar: string, path: string): string => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8').trim();
    } catch (err) {
      throw ConfigError.at('environment', [fileVar], unreadableFile(path, err));
    }
    if (text === '') throw ConfigError.at('environment', [fileVar], `names an empty file (${path})`);
    return text;
  };
  for (const [name, fileVar] of SECRET_FILE_VARIABLES) {
    const path = picked[fileVar];
    if (path === undefined) continue;
    if (picked[name] !== undefined)
      throw ConfigError.at('environment', [fileVar], `set ${name} or ${fileVar}, not both`);
    picked[name] = read(fileVar, path);
  }
  const tokenFile = picked.FIXLOOP_API_TOKEN_FILE;
  if (picked.FIXLOOP_API_TOKEN === undefined && tokenFile !== undefined && isFile(tokenFile)) {
    // An empty file is as good as none: `serve` writes a fresh token into it, as it always has.
    const token = readFileSync(tokenFile, 'utf8').trim();
    if (token !== '') picked.FIXLOOP_API_TOKEN = token;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function blankToUndefined(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
