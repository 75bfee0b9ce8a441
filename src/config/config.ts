// loadConfig: environment + optional config file → one validated, deeply frozen Config (SPEC M5, C1).
// Follows probot's conventions (PORT, HOST, WEBHOOK_SECRET, LOG_LEVEL, APP_ID, PRIVATE_KEY…); where
// a setting exists in both places the environment wins (decision 0006 (g)). Every variable and key
// is listed in docs/configuration.md.
// Each part is resolved in its own file (runner-config.ts, notices-config.ts, github-config.ts, …); this
// one reads the environment and the file, and assembles and freezes the whole.
import { resolve } from 'node:path';
import type { Work } from '../core/types.js';
import { ConfigError } from './errors.js';
import { readConfigFile } from './read-file.js';
import { configFileSchema, configFileSchemaFor, PROVIDERS, type ConfigFile } from './schema.js';
import {
  DEFAULT_MAX_INFLIGHT_BYTES,
  MIN_API_TOKEN_LENGTH,
  SECRET_FILE_VARIABLES,
  type FaultPoint,
  type GitLabWorkspaceToken,
  type LogLevel,
} from './env-schema.js';
import type { TrustProxySetting } from './trust-proxy.js';
import { blankToUndefined, parseEnv } from './read-environment.js';
import { resolveGitHub, type GitHubConfig } from './github-config.js';
import { resolveIsolation, resolveRunner, type AgentIsolationConfig, type RunnerConfig } from './runner-config.js';
import { resolveNotices, type NoticesConfig } from './notices-config.js';
import { resolveMaxAttempts, resolveMaxGrants } from './attempt-limits.js';
import { checkCredentialUrls } from './credential-urls.js';

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
  /** Issue 35: how long an automatic run may stay unfinished before it is ended with a notice (`runTimeoutMinutes`). */
  readonly runTimeoutMs: number;
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
  readonly agentIsolation: AgentIsolationConfig;
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
  /** The ids of code hosts registered beyond GitHub and GitLab (decision 0060): a Work may name them as its provider. */
  hosts?: readonly string[];
}

export function loadConfig({ env = process.env, file, hosts = [] }: LoadConfigOptions = {}): Config {
  const warnings: string[] = [];
  const vars = parseEnv(env, warnings);
  const path = file ?? blankToUndefined(env.FIXLOOP_CONFIG);
  const configFile = path === undefined ? null : resolve(path);
  const schema = hosts.length === 0 ? configFileSchema : configFileSchemaFor([...PROVIDERS, ...hosts]);
  const fileConfig = configFile === null ? schema.parse({}) : parseFile(configFile, schema);

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
  const runner = resolveRunner(fileConfig.runner, vars, configFile, warnings, fileConfig.works);
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
    runTimeoutMs: fileConfig.runTimeoutMinutes * 60_000,
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
      vars.FIXLOOP_SESSION_API_KEY_FILE,
      vars.FIXLOOP_SESSION_WEBHOOK_SECRET_FILE,
    ].flatMap((f) => (f === undefined ? [] : [resolve(f)])),
    promptTemplate: (fileConfig.runner?.kind === 'mention' ? null : fileConfig.runner?.promptTemplate) ?? null,
    github,
    notices: resolveNotices(fileConfig.notices, vars, configFile, warnings),
    configFile,
    warnings,
  });
}

function parseFile(path: string, schema: typeof configFileSchema): ConfigFile {
  const result = schema.safeParse(readConfigFile(path));
  if (!result.success) throw new ConfigError(path, result.error);
  return result.data;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
