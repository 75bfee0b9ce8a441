// loadConfig: environment + optional config file → one validated, deeply frozen Config (SPEC M5, C1).
// Follows probot's conventions (PORT, HOST, WEBHOOK_SECRET, LOG_LEVEL, APP_ID, PRIVATE_KEY…); where
// a setting exists in both places the environment wins (decision 0006 (g)). Every variable and key
// is listed in docs/configuration.md.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { MAX_ATTEMPTS_LIMIT, parseMaxAttempts } from '../core/budget.js';
import { MAX_GRANTS_LIMIT, parseMaxGrants } from '../core/grant-cap.js';
import type { Work } from '../core/types.js';
import { ConfigError, unreadableFile } from './errors.js';
import { githubAppDir, hasStoredApp, storedAppPath } from './github-app-files.js';
import { judgeCredentialUrls, type CredentialUrl } from './insecure-hosts.js';
import { readConfigFile } from './read-file.js';
import {
  configFileSchema,
  DEFAULT_API_TOKEN_FILE,
  DEFAULT_MAX_INFLIGHT_BYTES,
  envSchema,
  MIN_API_TOKEN_LENGTH,
  RUNNER_PRESETS,
  SECRET_FILE_VARIABLES,
  type ConfigFile,
  type EnvConfig,
  type FaultPoint,
  type GitLabWorkspaceToken,
  type IsolationMode,
  type LogLevel,
  type RunnerPresetName,
  type TrustProxySetting,
} from './schema.js';

/** A ready-made command runner (src/runners/presets.ts) and its own options, as validated. */
export type RunnerPresetConfig = {
  [N in RunnerPresetName]: { readonly name: N; readonly options: Readonly<z.output<(typeof RUNNER_PRESETS)[N]>> };
}[RunnerPresetName];

/** L2: a fresh checkout of the Task's branch per run (src/runners/workspace.ts). */
export interface WorkspaceConfig {
  /** What to clone, `{repository}` standing for `owner/name`. */
  readonly cloneUrl: string;
  /** What to clone for a gitlab Work's project: `gitlabCloneUrl`, else a set `cloneUrl`, else GITLAB_URL's. */
  readonly gitlabCloneUrl: string;
  readonly depth: number;
  readonly layout: 'per-run' | 'per-task';
  /** Each git command's time limit. */
  readonly timeoutMs: number;
  /** Author and committer of the agent's commits; null = the workspace's default. */
  readonly identity: { readonly name: string; readonly email: string } | null;
  /** Written into the checkout in place of the branch's own agent files (AGENTS.md, .mcp.json, …). */
  readonly files: Readonly<Record<string, string>>;
}

export interface CommandRunnerConfig {
  readonly kind: 'command';
  /** A preset builds argv, its envAllow and stdin; null for a hand-written `command`. */
  readonly preset: RunnerPresetConfig | null;
  /** The hand-written argv; null with a preset. Never empty (an empty `command` means no runner). */
  readonly command: readonly string[] | null;
  /** Variables the agent may inherit, besides the preset's own. */
  readonly envAllow: readonly string[];
  /** For a hand-written command: the prompt file is the agent's stdin. */
  readonly stdinFromPromptFile: boolean;
  readonly cwd: string | null;
  readonly workspace: WorkspaceConfig | null;
}

export type RunnerConfig =
  CommandRunnerConfig | { readonly kind: 'http'; readonly url: string; readonly secret: string };

/** N3: the poll at scale (decision 0031). */
export interface PollConfig {
  /** Pull requests read in full at once. */
  concurrency: number;
  /** Share of each GitHub rate limit the poll leaves for everything else. */
  rateLimitReserve: number;
  /** How long a base branch's required checks are reused, 404 included. */
  protectionTtlSeconds: number;
  /** Glance at many pull requests in one GraphQL query, and read in full only those that changed. */
  bulkReads: boolean;
}

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

/** Q1 (decision 0034): the GitLab instance and the token fixloop reads and writes it with. */
export interface GitLabConfig {
  /** GITLAB_URL without a trailing slash, e.g. https://gitlab.com or https://gitlab.example.com. */
  url: string;
  /** GITLAB_TOKEN: a project or group access token with the `api` scope; null = no GitLab access. */
  token: string | null;
  /**
   * GITLAB_WORKSPACE_TOKEN (L2): `project` mints a project access token per project for the agent's
   * checkout; `configured` falls back to GITLAB_TOKEN itself where minting is refused.
   */
  workspaceToken: GitLabWorkspaceToken;
}

/** One notice sink as resolved: its name is unique, and a webhook always has its secret. */
export type NoticeSinkConfig =
  | { readonly kind: 'slack'; readonly name: string; readonly url: string }
  | { readonly kind: 'webhook'; readonly name: string; readonly url: string; readonly secret: string };

export interface NoticesConfig {
  readonly sinks: readonly NoticeSinkConfig[];
  readonly retry: { readonly maxAttempts: number; readonly initialMs: number; readonly maxMs: number };
  readonly timeoutMs: number;
  /** GitHub's web origin (https://github.com or the GHE host), for links to pull requests. */
  readonly webUrl: string;
}

/** Crash tests only (FIXLOOP_FAULT): die by SIGKILL when the pipeline reaches `point`. */
export interface FaultConfig {
  readonly point: FaultPoint;
  readonly action: 'kill';
}

export interface Config {
  readonly port: number;
  readonly host: string;
  /** The address people use (FIXLOOP_PUBLIC_URL): links in notices, the commit status, the dashboard's origin. No trailing slash. */
  readonly publicUrl: string;
  /** Where a resumed agent reaches fixloop's API and MCP (FIXLOOP_AGENT_URL, default publicUrl). No trailing slash. */
  readonly agentUrl: string;
  /** Which proxy in front is believed about scheme, host and client (FIXLOOP_TRUST_PROXY); null: none. */
  readonly trustProxy: TrustProxySetting | null;
  readonly databaseUrl: string;
  /**
   * WEBHOOK_SECRET split on commas; the first signs, all verify (rotation, A1). Empty before GitHub is
   * connected: the GitHub webhook then answers 503 (decision 0050). The App stored by the setup page
   * adds its own secret (data/github-app/webhook-secret) to the end.
   */
  readonly webhookSecrets: readonly string[];
  /** GITLAB_WEBHOOK_SECRET split on commas, every entry accepted (rotation); empty = no GitLab route (decision 0032). */
  readonly gitlabWebhookSecrets: readonly string[];
  /** GITLAB_WEBHOOK_SIGNING_TOKEN split on commas: a body's signature must verify with one (decision 0036). */
  readonly gitlabWebhookSigningTokens: readonly string[];
  readonly gitlab: GitLabConfig;
  readonly webhookMaxBytes: number;
  /** Bytes held at once, across requests, for webhook bodies whose signature is not yet checked (A1). */
  readonly webhookMaxInflightBytes: number;
  /** The server's edge (A1): slow headers and requests are cut, open connections capped. */
  readonly edge: {
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly maxConnections: number;
  };
  /** Bearer token for the JSON API; null only when HOST is loopback. */
  readonly apiToken: string | null;
  /** Where `serve` keeps the token it generates when apiToken is null (FIXLOOP_API_TOKEN_FILE). */
  readonly apiTokenFile: string;
  /** Bearer token that opens /metrics only (FIXLOOP_METRICS_TOKEN, N2); the API token opens it too. */
  readonly metricsToken: string | null;
  readonly logLevel: LogLevel;
  readonly workDir: string;
  /** Per-Task automatic resume budget, 0–5 (C1); 0 switches the loop off. */
  readonly maxAttempts: number;
  /** V4, K5: a person's grants of one more attempt per Task across its life, 0–20; a Task's own cap (API) wins. */
  readonly maxGrants: number;
  readonly works: readonly Work[];
  /** Allow-listed reviewer bots, lower-case logins (F1, F2). */
  readonly reviewBots: readonly string[];
  /** The poll's interval (E1); it runs only when GitHub credentials are configured. */
  readonly pollIntervalMs: number;
  /** N3: how the poll spends GitHub's rate limit (decision 0031). */
  readonly poll: Readonly<PollConfig>;
  /** A stopped Task with no answer for this long is parked (K5). */
  readonly parkAfterMs: number;
  /** M4: write the `fixloop` commit status on each pull request's head (handoff.commitStatus). */
  readonly commitStatus: boolean;
  /**
   * Attempts untouched this long are reconciled at start-up (FIXLOOP_RECONCILE_GRACE_MS); null = the
   * dialect's default, 0 on SQLite and 30 s on PostgreSQL, decided by createFixloop (decision 0014).
   */
  readonly reconcileGraceMs: number | null;
  /** The period of the running reconciliation pass (FIXLOOP_ADOPT_EVERY_MS; decision 0013). */
  readonly adoptEveryMs: number;
  /**
   * V4: how long a shutdown (SIGTERM, SIGINT) lets running agents finish before it stops them and
   * their runs count as interrupted (FIXLOOP_SHUTDOWN_GRACE_MS, else `shutdownGraceMs`; 0 = no wait).
   */
  readonly shutdownGraceMs: number;
  /** Crash tests only (FIXLOOP_FAULT); null in production. */
  readonly fault: FaultConfig | null;
  /** K6: the cost ceiling per Task (null = none), the expected cost of an attempt, the CI minute price. */
  readonly cost: {
    readonly ceiling: number | null;
    readonly expectedAttemptCost: number;
    readonly ciMinutePrice: number;
    /** Issue 33: the currency of every amount (`guards.currency`, ISO 4217), shown beside spend. */
    readonly currency: string;
  };
  /** K9: at most `perWindow` automatic wakes in `windowMs`, and `sinceHuman` since a person acted. */
  readonly wakeCaps: { readonly perWindow: number; readonly windowMs: number; readonly sinceHuman: number };
  /** T2: re-runs of a head's failed jobs per (Task, head) before the agent (`triage.rerunsPerHead`); 0 = off. */
  readonly rerunsPerHead: number;
  /** T6: how long a new head's checks get to report before a missing failure counts as changed (`triage.matrixSettleMinutes`). */
  readonly matrixSettleMs: number;
  /** T1: refuse an attempt for a check that is red on the base branch too (triage.redOnBase). */
  readonly redOnBase: boolean;
  /** T4: how long a new head after an attempt may go without CI before the notice (ms; 0 = off). */
  readonly noCiMs: number;
  /** null = no runner configured: the app must refuse to dispatch. */
  readonly runner: RunnerConfig | null;
  /**
   * L3: how a command runner isolates its agent (FIXLOOP_AGENT_ISOLATION, else `runner.isolation`) and
   * as whom (FIXLOOP_AGENT_USER, else `runner.user`); null = the default, chosen where the runner is
   * built from fixloop's own uid (src/runners/isolation.ts).
   */
  readonly agentIsolation: { readonly mode: IsolationMode | null; readonly user: string | null };
  /** Absolute paths of the files secrets come from (`…_FILE`, PRIVATE_KEY_PATH, FIXLOOP_API_TOKEN_FILE). */
  readonly secretFiles: readonly string[];
  /**
   * The operator's prompt template (`runner.promptTemplate`), checked at load; null = fixloop's
   * default. The protocol block is always appended after it (I4).
   */
  readonly promptTemplate: string | null;
  readonly github: Readonly<GitHubConfig>;
  /** G1/P4: where notices are also sent, and how a failed delivery is retried (decision 0025). */
  readonly notices: NoticesConfig;
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
  const vars = parseEnv(env, warnings);
  const path = file ?? blankToUndefined(env.FIXLOOP_CONFIG);
  const configFile = path === undefined ? null : resolve(path);
  const fileConfig = configFile === null ? configFileSchema.parse({}) : parseFile(configFile);

  const host = vars.HOST;
  const publicUrl = (
    vars.FIXLOOP_PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${vars.PORT}`
  ).replace(/\/+$/, '');
  const agentUrl = (vars.FIXLOOP_AGENT_URL ?? publicUrl).replace(/\/+$/, '');
  if (
    vars.FIXLOOP_PUBLIC_URL === undefined &&
    vars.FIXLOOP_AGENT_URL === undefined &&
    (host === '0.0.0.0' || host === '::')
  ) {
    warnings.push(`FIXLOOP_PUBLIC_URL is not set and HOST=${host} is a wildcard; agents will be told ${publicUrl}`);
  }
  // Off loopback a short token is refused (schema.ts); on loopback only this machine can guess it.
  if (vars.FIXLOOP_API_TOKEN !== undefined && vars.FIXLOOP_API_TOKEN.length < MIN_API_TOKEN_LENGTH) {
    warnings.push(
      `FIXLOOP_API_TOKEN is ${vars.FIXLOOP_API_TOKEN.length} characters; use at least ${MIN_API_TOKEN_LENGTH} ` +
        '(`openssl rand -base64 32`) — fixloop refuses a shorter one when HOST is not loopback',
    );
  }

  const github = resolveGitHub(vars);
  const runner = resolveRunner(fileConfig.runner, vars, configFile, warnings);
  checkCredentialUrls(vars, github, runner, configFile, warnings);

  return deepFreeze({
    port: vars.PORT,
    host,
    publicUrl,
    agentUrl,
    trustProxy: vars.FIXLOOP_TRUST_PROXY ?? null,
    databaseUrl: vars.DATABASE_URL,
    webhookSecrets: vars.WEBHOOK_SECRET ?? [],
    gitlabWebhookSecrets: vars.GITLAB_WEBHOOK_SECRET ?? [],
    gitlabWebhookSigningTokens: vars.GITLAB_WEBHOOK_SIGNING_TOKEN ?? [],
    gitlab: {
      url: vars.GITLAB_URL.replace(/\/+$/, ''),
      token: vars.GITLAB_TOKEN ?? null,
      workspaceToken: vars.GITLAB_WORKSPACE_TOKEN,
    },
    webhookMaxBytes: vars.WEBHOOK_MAX_BYTES,
    webhookMaxInflightBytes:
      vars.WEBHOOK_MAX_INFLIGHT_BYTES ?? Math.max(DEFAULT_MAX_INFLIGHT_BYTES, vars.WEBHOOK_MAX_BYTES),
    edge: {
      headersTimeoutMs: vars.FIXLOOP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: vars.FIXLOOP_REQUEST_TIMEOUT_MS,
      maxConnections: vars.FIXLOOP_MAX_CONNECTIONS,
    },
    apiToken: vars.FIXLOOP_API_TOKEN ?? null,
    apiTokenFile: vars.FIXLOOP_API_TOKEN_FILE,
    metricsToken: vars.FIXLOOP_METRICS_TOKEN ?? null,
    logLevel: vars.LOG_LEVEL,
    workDir: vars.FIXLOOP_WORK_DIR,
    maxAttempts: resolveMaxAttempts(env.TASK_CI_AUTO_RESUME_MAX_ATTEMPTS, fileConfig.maxAttempts, configFile, warnings),
    maxGrants: resolveMaxGrants(env.TASK_MAX_GRANTS, fileConfig.maxGrants, configFile, warnings),
    works: fileConfig.works,
    reviewBots: fileConfig.reviewBots.map((b) => b.toLowerCase()),
    pollIntervalMs: fileConfig.poll.intervalSeconds * 1000,
    poll: {
      concurrency: fileConfig.poll.concurrency,
      rateLimitReserve: fileConfig.poll.rateLimitReserve,
      protectionTtlSeconds: fileConfig.poll.protectionTtlSeconds,
      bulkReads: fileConfig.poll.bulkReads,
    },
    parkAfterMs: fileConfig.handoff.parkAfterHours * 3_600_000,
    commitStatus: fileConfig.handoff.commitStatus,
    reconcileGraceMs: vars.FIXLOOP_RECONCILE_GRACE_MS ?? null,
    adoptEveryMs: vars.FIXLOOP_ADOPT_EVERY_MS,
    shutdownGraceMs: vars.FIXLOOP_SHUTDOWN_GRACE_MS ?? fileConfig.shutdownGraceMs,
    fault: vars.FIXLOOP_FAULT ?? null,
    cost: {
      ceiling: fileConfig.guards.costCeiling,
      expectedAttemptCost: fileConfig.guards.expectedAttemptCost,
      ciMinutePrice: fileConfig.guards.ciMinutePrice,
      currency: fileConfig.guards.currency,
    },
    wakeCaps: {
      perWindow: fileConfig.guards.wakesPerWindow,
      windowMs: fileConfig.guards.wakeWindowMinutes * 60_000,
      sinceHuman: fileConfig.guards.wakesSinceHuman,
    },
    rerunsPerHead: fileConfig.triage.rerunsPerHead,
    matrixSettleMs: fileConfig.triage.matrixSettleMinutes * 60_000,
    redOnBase: fileConfig.triage.redOnBase,
    noCiMs: fileConfig.triage.noCiMinutes * 60_000,
    runner,
    agentIsolation: resolveIsolation(fileConfig.runner, vars, warnings),
    secretFiles: [
      ...SECRET_FILE_VARIABLES.map(([, fileVar]) => vars[fileVar]),
      vars.PRIVATE_KEY_PATH,
      vars.FIXLOOP_API_TOKEN_FILE,
    ].flatMap((f) => (f === undefined ? [] : [resolve(f)])),
    promptTemplate: fileConfig.runner?.promptTemplate ?? null,
    github,
    notices: resolveNotices(fileConfig.notices, vars, configFile, warnings),
    configFile,
    warnings,
  });
}

function parseEnv(env: NodeJS.ProcessEnv, warnings: string[]): EnvConfig {
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

function parseFile(path: string): ConfigFile {
  const result = configFileSchema.safeParse(readConfigFile(path));
  if (!result.success) throw new ConfigError(path, result.error);
  return result.data;
}

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

/**
 * G1/P4: the sinks, named (default: the kind), with their secrets. The environment wins for the one
 * sink of its kind; FIXLOOP_SLACK_WEBHOOK_URL alone adds a `slack` sink. With two sinks of a kind the
 * variable could mean either, so that is an error.
 */
function resolveNotices(
  n: ConfigFile['notices'],
  vars: EnvConfig,
  file: string | null,
  warnings: string[],
): NoticesConfig {
  const where = file ?? 'environment';
  const raw = [...n.sinks];
  const slackUrl = vars.FIXLOOP_SLACK_WEBHOOK_URL;
  const hookSecret = vars.FIXLOOP_NOTICE_WEBHOOK_SECRET;
  if (slackUrl !== undefined && !raw.some((s) => s.kind === 'slack')) raw.push({ kind: 'slack', url: slackUrl });
  const ofKind = (kind: string) => raw.filter((s) => s.kind === kind).length;
  if (slackUrl !== undefined && ofKind('slack') > 1)
    throw ConfigError.at(
      'environment',
      ['FIXLOOP_SLACK_WEBHOOK_URL'],
      "is ambiguous with more than one slack sink; set each sink's `url` instead",
    );
  if (hookSecret !== undefined && ofKind('webhook') > 1)
    throw ConfigError.at(
      'environment',
      ['FIXLOOP_NOTICE_WEBHOOK_SECRET'],
      "is ambiguous with more than one webhook sink; set each sink's `secret` instead",
    );
  if (hookSecret !== undefined && ofKind('webhook') === 0)
    warnings.push('FIXLOOP_NOTICE_WEBHOOK_SECRET is set but no notices.sinks entry has kind webhook; it is unused');
  const names = new Set<string>();
  const sinks = raw.map((s, i): NoticeSinkConfig => {
    const name = s.name ?? s.kind;
    if (names.has(name))
      throw ConfigError.at(
        where,
        ['notices', 'sinks', i, 'name'],
        `two sinks are named "${name}"; give each its own \`name\``,
      );
    names.add(name);
    if (s.kind === 'slack') {
      const url = slackUrl ?? s.url;
      if (url === undefined)
        throw ConfigError.at(
          where,
          ['notices', 'sinks', i, 'url'],
          'is required for a slack sink (or set FIXLOOP_SLACK_WEBHOOK_URL)',
        );
      return { kind: 'slack', name, url };
    }
    const secret = hookSecret ?? s.secret;
    if (secret === undefined)
      throw ConfigError.at(
        where,
        ['notices', 'sinks', i, 'secret'],
        'is required for a webhook sink (or set FIXLOOP_NOTICE_WEBHOOK_SECRET)',
      );
    return { kind: 'webhook', name, url: s.url, secret };
  });
  return {
    sinks,
    retry: {
      maxAttempts: n.retry.maxAttempts,
      initialMs: n.retry.initialSeconds * 1000,
      maxMs: n.retry.maxSeconds * 1000,
    },
    timeoutMs: n.timeoutSeconds * 1000,
    webUrl: defaultCloneUrl(vars).replace(/\/\{repository\}\.git$/, ''),
  };
}

/** L3: the environment wins; the default (null) is chosen by the runner's builder. `none` is said out loud. */
function resolveIsolation(runner: ConfigFile['runner'], vars: EnvConfig, warnings: string[]): Config['agentIsolation'] {
  const fromFile = runner?.kind === 'command' ? runner : undefined;
  const mode = vars.FIXLOOP_AGENT_ISOLATION ?? fromFile?.isolation ?? null;
  if (mode === 'none' && runner?.kind === 'command') {
    warnings.push(
      'runner.isolation is none: the agent runs as fixloop\'s own user and can read its secrets (its /proc/<pid>/environ, the data directory); see docs/agents.md, "Running agents safely"',
    );
  }
  return { mode, user: vars.FIXLOOP_AGENT_USER ?? fromFile?.user ?? null };
}

/** The environment wins (0006 (g)); an unparseable value falls back to the file's, else 2, with a warning (C1). */
function resolveMaxAttempts(
  raw: string | undefined,
  fromFile: number | undefined,
  file: string | null,
  warnings: string[],
): number {
  const parsed = parseMaxAttempts(raw);
  if (parsed.warning === null)
    return blankToUndefined(raw) === undefined && fromFile !== undefined ? fromFile : parsed.max;
  if (fromFile !== undefined) {
    const shown = JSON.stringify(raw?.trim());
    warnings.push(
      `TASK_CI_AUTO_RESUME_MAX_ATTEMPTS=${shown} is not an integer 0–${MAX_ATTEMPTS_LIMIT}; using maxAttempts=${fromFile} from ${file}`,
    );
    return fromFile;
  }
  warnings.push(parsed.warning);
  return parsed.max;
}

/** V4: as resolveMaxAttempts — the environment wins; an unparseable value falls back to the file's, else 3, with a warning. */
function resolveMaxGrants(
  raw: string | undefined,
  fromFile: number | undefined,
  file: string | null,
  warnings: string[],
): number {
  const parsed = parseMaxGrants(raw);
  if (parsed.warning === null)
    return blankToUndefined(raw) === undefined && fromFile !== undefined ? fromFile : parsed.max;
  if (fromFile !== undefined) {
    warnings.push(
      `TASK_MAX_GRANTS=${JSON.stringify(raw?.trim())} is not an integer 0–${MAX_GRANTS_LIMIT}; using maxGrants=${fromFile} from ${file}`,
    );
    return fromFile;
  }
  warnings.push(parsed.warning);
  return parsed.max;
}

function resolveRunner(
  runner: ConfigFile['runner'],
  vars: EnvConfig,
  file: string | null,
  warnings: string[],
): RunnerConfig | null {
  if (runner === undefined) return null;
  switch (runner.kind) {
    case 'command': {
      if (runner.preset === undefined && (runner.command ?? []).length === 0) return null;
      const preset = runner.preset === undefined ? null : presetConfig(runner.preset, runner.presetOptions);
      const w = runner.workspace;
      const layout = w?.layout ?? (preset?.name === 'claude-code-resume' ? 'per-task' : 'per-run');
      const workspace: WorkspaceConfig | null =
        w === undefined
          ? null
          : {
              cloneUrl: w.cloneUrl ?? defaultCloneUrl(vars),
              gitlabCloneUrl:
                w.gitlabCloneUrl ?? w.cloneUrl ?? `${vars.GITLAB_URL.replace(/\/+$/, '')}/{repository}.git`,
              depth: w.depth,
              layout,
              timeoutMs: w.timeoutSeconds * 1000,
              identity: w.identity ?? null,
              files: w.files,
            };
      if (preset?.name === 'codex-exec-resume') {
        const problem = codexPresetProblem(workspace, runner.cwd);
        if (problem) throw ConfigError.at(file ?? 'environment', ['runner', runner.cwd ? 'cwd' : 'workspace'], problem);
      }
      return {
        kind: 'command',
        preset,
        command: preset === null ? (runner.command ?? []) : null,
        envAllow: runner.envAllow,
        stdinFromPromptFile: runner.stdinFromPromptFile ?? false,
        cwd: runner.cwd ?? null,
        workspace,
      };
    }
    case 'http': {
      const secret = vars.FIXLOOP_RUNNER_SECRET ?? runner.secret;
      if (secret === undefined) {
        throw ConfigError.at(
          file ?? 'environment',
          ['runner', 'secret'],
          'is required for an http runner (or set FIXLOOP_RUNNER_SECRET)',
        );
      }
      return { kind: 'http', url: runner.url, secret };
    }
    default: {
      const never: never = runner;
      throw new Error(`unknown runner ${JSON.stringify(never)}`);
    }
  }
}

/** The preset's options, typed by its schema (already checked by configFileSchema). */
function presetConfig(name: RunnerPresetName, options: Record<string, unknown> | undefined): RunnerPresetConfig {
  switch (name) {
    case 'claude-code-resume':
      return { name, options: RUNNER_PRESETS[name].parse(options ?? {}) };
    case 'codex-exec-resume':
      return { name, options: RUNNER_PRESETS[name].parse(options ?? {}) };
  }
}

/**
 * Codex's git-directory rule: `codex exec` refuses a working directory that is not a git checkout,
 * so the preset needs a workspace, or a `cwd` that is a checkout.
 */
function codexPresetProblem(workspace: WorkspaceConfig | null, cwd: string | undefined): string | null {
  if (workspace !== null) return null;
  if (cwd === undefined)
    return "preset codex-exec-resume needs runner.workspace (a checkout of the Task's branch per run), or runner.cwd naming a git checkout: `codex exec` refuses a directory that is not one";
  if (!existsSync(join(cwd, '.git')))
    return `preset codex-exec-resume runs in runner.cwd ${JSON.stringify(cwd)}, which is not a git checkout (no .git): \`codex exec\` refuses it; configure runner.workspace instead`;
  return null;
}

/**
 * Where checkouts come from when `runner.workspace.cloneUrl` is not set: GHE_PROTOCOL://GHE_HOST,
 * else the host of GITHUB_API_URL (api.github.com → github.com, api.<x>.ghe.com → <x>.ghe.com), else
 * https://github.com.
 */
function defaultCloneUrl(vars: Pick<EnvConfig, 'GHE_HOST' | 'GHE_PROTOCOL' | 'GITHUB_API_URL'>): string {
  let origin = 'https://github.com';
  if (vars.GHE_HOST !== undefined) origin = `${vars.GHE_PROTOCOL}://${vars.GHE_HOST}`;
  else if (vars.GITHUB_API_URL !== undefined) {
    const api = new URL(vars.GITHUB_API_URL);
    const host =
      api.hostname === 'api.github.com'
        ? 'github.com'
        : /^api\.[^.]+\.ghe\.com$/i.test(api.hostname)
          ? api.hostname.slice(4)
          : api.hostname;
    origin = `${api.protocol}//${host}${api.port ? `:${api.port}` : ''}`;
  }
  return `${origin}/{repository}.git`;
}

/**
 * Issue 31: every provider URL a token is sent to is https or loopback — GitHub's API (GITHUB_API_URL,
 * else GHE_PROTOCOL://GHE_HOST), GITLAB_URL, and a workspace's clone URLs — unless the lab opt-out is
 * set, which is warned about at every start (decision 0047).
 */
function checkCredentialUrls(
  vars: EnvConfig,
  github: GitHubConfig,
  runner: Config['runner'],
  configFile: string | null,
  warnings: string[],
): void {
  const githubSetting = vars.GITHUB_API_URL !== undefined ? 'GITHUB_API_URL' : 'GHE_PROTOCOL';
  const urls: CredentialUrl[] = [
    { setting: githubSetting, url: github.apiUrl },
    { setting: 'GITLAB_URL', url: vars.GITLAB_URL },
  ];
  if (runner?.kind === 'command' && runner.workspace) {
    urls.push({ setting: 'runner.workspace.cloneUrl', url: runner.workspace.cloneUrl.replaceAll('{repository}', 'r') });
    urls.push({
      setting: 'runner.workspace.gitlabCloneUrl',
      url: runner.workspace.gitlabCloneUrl.replaceAll('{repository}', 'r'),
    });
  }
  const verdict = judgeCredentialUrls(urls, vars.FIXLOOP_ALLOW_INSECURE_HOSTS);
  if (verdict.kind === 'refuse') {
    const inFile = verdict.setting.startsWith('runner.');
    throw ConfigError.at(
      inFile ? (configFile ?? 'environment') : 'environment',
      inFile ? verdict.setting.split('.') : [verdict.setting],
      verdict.message,
    );
  }
  if (verdict.kind === 'allowed') warnings.push(verdict.warning);
}

function resolveGitHub(vars: EnvConfig): GitHubConfig {
  const apiUrl = (
    vars.GITHUB_API_URL ??
    (vars.GHE_HOST === undefined ? 'https://api.github.com' : `${vars.GHE_PROTOCOL}://${vars.GHE_HOST}/api/v3`)
  ).replace(/\/+$/, '');
  let privateKey: string | null = null;
  if (vars.PRIVATE_KEY_PATH !== undefined) {
    try {
      privateKey = readFileSync(vars.PRIVATE_KEY_PATH, 'utf8');
    } catch (err) {
      throw ConfigError.at('environment', ['PRIVATE_KEY_PATH'], unreadableFile(vars.PRIVATE_KEY_PATH, err));
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
