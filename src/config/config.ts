// loadConfig: environment + optional config file → one validated, deeply frozen Config (SPEC M5, C1).
// Follows probot's conventions (PORT, HOST, WEBHOOK_SECRET, LOG_LEVEL, APP_ID, PRIVATE_KEY…); where
// a setting exists in both places the environment wins (decision 0006 (g)). Every variable and key
// is listed in docs/configuration.md.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAX_ATTEMPTS_LIMIT, parseMaxAttempts } from '../core/budget.js';
import type { Work } from '../core/types.js';
import { ConfigError } from './errors.js';
import { readConfigFile } from './read-file.js';
import { configFileSchema, envSchema, isLoopbackHost, type ConfigFile, type EnvConfig, type LogLevel } from './schema.js';

export type RunnerConfig =
  | { kind: 'command'; command: readonly string[]; envAllow: readonly string[]; cwd: string | null }
  | { kind: 'http'; url: string; secret: string };

export interface GitHubConfig {
  /** GitHub App id (APP_ID); null when fixloop uses a token or no GitHub access. */
  appId: string | null;
  /** PEM text of the App's private key (PRIVATE_KEY, or the file at PRIVATE_KEY_PATH). */
  privateKey: string | null;
  /** A personal or installation token (GITHUB_TOKEN), the alternative to an App. */
  token: string | null;
  /** REST base URL: https://api.github.com, or GHE_PROTOCOL://GHE_HOST/api/v3. */
  apiUrl: string;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  /** The API URL agents are told (FIXLOOP_PUBLIC_URL), without a trailing slash. */
  readonly publicUrl: string;
  readonly databaseUrl: string;
  /** WEBHOOK_SECRET split on commas; the first signs, all verify (rotation, A1). */
  readonly webhookSecrets: readonly string[];
  readonly webhookMaxBytes: number;
  /** Bearer token for the JSON API; null only when HOST is loopback. */
  readonly apiToken: string | null;
  readonly logLevel: LogLevel;
  readonly workDir: string;
  /** Per-Task automatic resume budget, 0–5 (C1); 0 switches the loop off. */
  readonly maxAttempts: number;
  readonly works: readonly Work[];
  /** Allow-listed reviewer bots, lower-case logins (F1, F2). */
  readonly reviewBots: readonly string[];
  /** The poll's interval (E1); it runs only when GitHub credentials are configured. */
  readonly pollIntervalMs: number;
  /** A stopped Task with no answer for this long is parked (K5). */
  readonly parkAfterMs: number;
  /** K6: the cost ceiling per Task (null = none), the expected cost of an attempt, the CI minute price. */
  readonly cost: { readonly ceiling: number | null; readonly expectedAttemptCost: number; readonly ciMinutePrice: number };
  /** K9: at most `perWindow` automatic wakes in `windowMs`, and `sinceHuman` since a person acted. */
  readonly wakeCaps: { readonly perWindow: number; readonly windowMs: number; readonly sinceHuman: number };
  /** null = no runner configured: the app must refuse to dispatch. */
  readonly runner: RunnerConfig | null;
  readonly github: Readonly<GitHubConfig>;
  /** Absolute path of the config file read, or null. */
  readonly configFile: string | null;
  /** Problems that did not stop start-up (e.g. an unparseable budget); log them once. */
  readonly warnings: readonly string[];
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Config file path; defaults to env FIXLOOP_CONFIG; none → environment only. */
  file?: string;
}

export function loadConfig({ env = process.env, file }: LoadConfigOptions = {}): Config {
  const warnings: string[] = [];
  const vars = parseEnv(env);
  const path = file ?? blankToUndefined(env.FIXLOOP_CONFIG);
  const configFile = path === undefined ? null : resolve(path);
  const fileConfig = configFile === null ? configFileSchema.parse({}) : parseFile(configFile);

  const host = vars.HOST;
  const publicUrl = (vars.FIXLOOP_PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${vars.PORT}`).replace(/\/+$/, '');
  if (vars.FIXLOOP_PUBLIC_URL === undefined && (host === '0.0.0.0' || host === '::')) {
    warnings.push(`FIXLOOP_PUBLIC_URL is not set and HOST=${host} is a wildcard; agents will be told ${publicUrl}`);
  }

  return deepFreeze({
    port: vars.PORT,
    host,
    publicUrl,
    databaseUrl: vars.DATABASE_URL,
    webhookSecrets: vars.WEBHOOK_SECRET,
    webhookMaxBytes: vars.WEBHOOK_MAX_BYTES,
    apiToken: vars.FIXLOOP_API_TOKEN ?? null,
    logLevel: vars.LOG_LEVEL,
    workDir: vars.FIXLOOP_WORK_DIR,
    maxAttempts: resolveMaxAttempts(env.TASK_CI_AUTO_RESUME_MAX_ATTEMPTS, fileConfig.maxAttempts, configFile, warnings),
    works: fileConfig.works,
    reviewBots: fileConfig.reviewBots.map((b) => b.toLowerCase()),
    pollIntervalMs: fileConfig.poll.intervalSeconds * 1000,
    parkAfterMs: fileConfig.handoff.parkAfterHours * 3_600_000,
    cost: { ceiling: fileConfig.guards.costCeiling, expectedAttemptCost: fileConfig.guards.expectedAttemptCost, ciMinutePrice: fileConfig.guards.ciMinutePrice },
    wakeCaps: { perWindow: fileConfig.guards.wakesPerWindow, windowMs: fileConfig.guards.wakeWindowMinutes * 60_000, sinceHuman: fileConfig.guards.wakesSinceHuman },
    runner: resolveRunner(fileConfig.runner, vars, configFile),
    github: resolveGitHub(vars),
    configFile,
    warnings,
  });
}

function parseEnv(env: NodeJS.ProcessEnv): EnvConfig {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(envSchema.shape)) {
    const value = blankToUndefined(env[name]);
    if (value !== undefined) picked[name] = value;
  }
  const result = envSchema.safeParse(picked);
  if (!result.success) throw new ConfigError('environment', result.error);
  return result.data;
}

function parseFile(path: string): ConfigFile {
  const result = configFileSchema.safeParse(readConfigFile(path));
  if (!result.success) throw new ConfigError(path, result.error);
  return result.data;
}

/** The environment wins (0006 (g)); an unparseable value falls back to the file's, else 2, with a warning (C1). */
function resolveMaxAttempts(raw: string | undefined, fromFile: number | undefined, file: string | null, warnings: string[]): number {
  const parsed = parseMaxAttempts(raw);
  if (parsed.warning === null) return blankToUndefined(raw) === undefined && fromFile !== undefined ? fromFile : parsed.max;
  if (fromFile !== undefined) {
    const shown = JSON.stringify(raw?.trim());
    warnings.push(`TASK_CI_AUTO_RESUME_MAX_ATTEMPTS=${shown} is not an integer 0–${MAX_ATTEMPTS_LIMIT}; using maxAttempts=${fromFile} from ${file}`);
    return fromFile;
  }
  warnings.push(parsed.warning);
  return parsed.max;
}

function resolveRunner(runner: ConfigFile['runner'], vars: EnvConfig, file: string | null): RunnerConfig | null {
  if (runner === undefined) return null;
  switch (runner.kind) {
    case 'command':
      if (runner.command.length === 0) return null;
      return { kind: 'command', command: runner.command, envAllow: runner.envAllow, cwd: runner.cwd ?? null };
    case 'http': {
      const secret = vars.FIXLOOP_RUNNER_SECRET ?? runner.secret;
      if (secret === undefined) {
        throw ConfigError.at(file ?? 'environment', ['runner', 'secret'], 'is required for an http runner (or set FIXLOOP_RUNNER_SECRET)');
      }
      return { kind: 'http', url: runner.url, secret };
    }
    default: {
      const never: never = runner;
      throw new Error(`unknown runner ${JSON.stringify(never)}`);
    }
  }
}

function resolveGitHub(vars: EnvConfig): GitHubConfig {
  const apiUrl = (vars.GITHUB_API_URL ?? (vars.GHE_HOST === undefined ? 'https://api.github.com' : `${vars.GHE_PROTOCOL}://${vars.GHE_HOST}/api/v3`)).replace(/\/+$/, '');
  let privateKey: string | null = null;
  if (vars.PRIVATE_KEY_PATH !== undefined) {
    try {
      privateKey = readFileSync(vars.PRIVATE_KEY_PATH, 'utf8');
    } catch (err) {
      throw ConfigError.at('environment', ['PRIVATE_KEY_PATH'], `cannot be read: ${(err as Error).message}`);
    }
  } else if (vars.PRIVATE_KEY !== undefined) {
    privateKey = decodePrivateKey(vars.PRIVATE_KEY);
  }
  return { appId: vars.APP_ID ?? null, privateKey, token: vars.GITHUB_TOKEN ?? null, apiUrl };
}

/** probot accepts the PEM with literal `\n`s (one-line env files) or base64-encoded; so do we. */
function decodePrivateKey(raw: string): string {
  const text = raw.includes('-----BEGIN') ? raw : Buffer.from(raw, 'base64').toString('utf8');
  if (!text.includes('-----BEGIN')) {
    throw ConfigError.at('environment', ['PRIVATE_KEY'], 'is not a PEM key (nor base64 of one)');
  }
  return text.replace(/\\n/g, '\n');
}

function blankToUndefined(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
