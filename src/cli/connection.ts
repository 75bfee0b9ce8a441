// Which fixloop server the CLI talks to, and with which token (SPEC M1, M2). The URL: --url, then
// FIXLOOP_URL, then the per-user config file, then http://127.0.0.1:$PORT. The token: --token, then
// FIXLOOP_API_TOKEN, then the per-user config file ($XDG_CONFIG_HOME/fixloop/config.json, else
// ~/.config/fixloop/config.json, written 0600 by `fixloop login`), then FIXLOOP_API_TOKEN_FILE only
// when it is set — never a path relative to the current directory. Every source looked at is kept,
// in order, so a refused request can say which were tried.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError } from './io.js';

/** What the per-user config file holds. */
export interface UserConfig {
  url?: string;
  token?: string;
}

/** One place a token was looked for, and what was found there. */
export interface TokenSource {
  /** How a person names it: `--token`, `FIXLOOP_API_TOKEN`, a file's path. */
  name: string;
  found: 'used' | 'not given' | 'not set' | 'no such file' | 'no token in it' | 'skipped (an earlier source won)';
}

export interface Connection {
  baseUrl: string;
  /** Where the URL came from, for messages. */
  urlSource: string;
  /** True when a server was named (flag, env or config file) rather than the loopback default. */
  configured: boolean;
  token: string | null;
  /** Every token source in the order they are tried. */
  tokenSources: TokenSource[];
}

export interface ConnectionFlags {
  url?: string;
  token?: string;
}

/** $XDG_CONFIG_HOME/fixloop/config.json, else $HOME/.config/fixloop/config.json; null with neither set. */
export function userConfigPath(env: NodeJS.ProcessEnv): string | null {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg) return join(xdg, 'fixloop', 'config.json');
  const home = env.HOME?.trim() || env.USERPROFILE?.trim();
  return home ? join(home, '.config', 'fixloop', 'config.json') : null;
}

/** The per-user config, or null when there is no file; a file that is not the expected JSON is exit 2. */
export function readUserConfig(path: string | null): UserConfig | null {
  if (path === null) return null;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(2, `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(2, `${path} is not JSON; rewrite it with \`fixloop login --url … --token …\``, { cause: err });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError(2, `${path} must hold a JSON object such as {"url": "…", "token": "…"}`);
  const v = value as Record<string, unknown>;
  const config: UserConfig = {};
  for (const key of ['url', 'token'] as const) {
    if (v[key] === undefined) continue;
    if (typeof v[key] !== 'string') throw new CliError(2, `${path}: "${key}" must be a string`);
    const s = v[key].trim();
    if (s) config[key] = s;
  }
  return config;
}

/** `fixloop login`: the file, readable by its owner only (0600, in a 0700 folder), replaced whole. */
export function writeUserConfig(path: string, config: UserConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600); // a umask cannot widen it, and an existing file is replaced, not reused
  renameSync(temp, path);
}

/** --url, FIXLOOP_URL, the config file, then the loopback default; a malformed URL is exit 2. */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Connection {
  const configPath = userConfigPath(env);
  const config = readUserConfig(configPath);

  const urlFrom: Array<[string, string | undefined]> = [
    ['--url', flags.url?.trim()],
    ['FIXLOOP_URL', env.FIXLOOP_URL?.trim()],
    [configPath ?? 'the config file', config?.url],
  ];
  const named = urlFrom.find(([, v]) => v);
  const raw = named?.[1] ?? `http://127.0.0.1:${env.PORT?.trim() || 3000}`;
  const baseUrl = checkedUrl(raw, named?.[0] ?? 'the default');

  const sources: TokenSource[] = [];
  let token: string | null = null;
  const offer = (name: string, value: string | null | undefined, missing: TokenSource['found']) => {
    if (token !== null) {
      sources.push({ name, found: 'skipped (an earlier source won)' });
      return;
    }
    const t = value?.trim();
    if (t) {
      token = t;
      sources.push({ name, found: 'used' });
    } else sources.push({ name, found: missing });
  };
  offer('--token', flags.token, 'not given');
  offer('FIXLOOP_API_TOKEN', env.FIXLOOP_API_TOKEN, 'not set');
  if (configPath === null)
    sources.push({ name: 'the per-user config file (neither XDG_CONFIG_HOME nor HOME is set)', found: 'not set' });
  else offer(configPath, config?.token, config === null ? 'no such file' : 'no token in it');
  // The server's own token file, only when a person points at it: never a path relative to here.
  const tokenFile = env.FIXLOOP_API_TOKEN_FILE?.trim();
  if (!tokenFile) sources.push({ name: 'FIXLOOP_API_TOKEN_FILE', found: 'not set' });
  else offer(`FIXLOOP_API_TOKEN_FILE (${tokenFile})`, token === null ? readTokenFile(tokenFile) : null, 'no such file');

  return {
    baseUrl,
    urlSource: named?.[0] ?? 'the default',
    configured: named !== undefined,
    token,
    tokenSources: sources,
  };
}

/** The sources in order, as one line: `--token (not given), FIXLOOP_API_TOKEN (used), …`. */
export function describeTokenSources(sources: readonly TokenSource[]): string {
  return sources.map((s) => `${s.name} (${s.found})`).join(', ');
}

/** The error for a 401/403: which token was refused, or that none was found, and every source tried. */
export function tokenError(conn: Connection, status: number): CliError {
  const tried = `Token sources tried, in order: ${describeTokenSources(conn.tokenSources)}.`;
  const fix = "Give the server's API token with `fixloop login --url URL --token TOKEN`, FIXLOOP_API_TOKEN or --token.";
  const used = conn.tokenSources.find((s) => s.found === 'used');
  if (!used)
    return new CliError(
      2,
      `${conn.baseUrl} needs an API token (it answered ${status}) and none was found. ${tried} ${fix}`,
    );
  return new CliError(
    2,
    `${conn.baseUrl} refused the API token from ${used.name} (it answered ${status}). ${tried} ${fix}`,
  );
}

function readTokenFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** An http(s) URL without a trailing slash, else exit 2 naming where it came from. */
export function checkedUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(2, `not a URL (from ${source}): ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(2, `not an http(s) URL (from ${source}): ${raw}`);
  return url.href.replace(/\/+$/, '');
}
