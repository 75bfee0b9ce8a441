// The environment variables fixloop reads (SPEC M5, C1, A1, L3, Q1), keyed by variable name so every
// error names the variable, with their defaults and the rules that join two of them (a token off
// loopback, a key with its App id). The config file's keys are src/config/schema.ts.
import { z } from 'zod';
import { ISOLATION_MODES, agentUserSpec } from './runner-schema.js';
import { sinkUrl } from './notices-schema.js';
import { trustProxy } from './trust-proxy.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const port = z
  .string()
  .regex(/^\d{1,5}$/, 'must be a port number')
  .transform(Number)
  .pipe(z.int().max(65535, 'must be a port number (0–65535)'));

const positiveInt = z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number).pipe(z.int().min(1));

/** A number of milliseconds as Number() reads it; `positive` also refuses 0 (a timer period of 0 would spin). */
function milliseconds(kind: 'positive' | 'non-negative') {
  return z.string().transform((v, ctx) => {
    const n = Number(v);
    if (Number.isFinite(n) && (kind === 'positive' ? n > 0 : n >= 0)) return n;
    ctx.addIssue({ code: 'custom', message: `must be a ${kind} number of milliseconds (got ${JSON.stringify(v)})` });
    return z.NEVER;
  });
}

/** The points of the pipeline a crash test may kill fixloop at (FIXLOOP_FAULT; FixloopAdapters.fault). */
const FAULT_POINTS = ['before_claim', 'after_claim', 'before_start', 'before_mark', 'after_start'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

/** Where `fixloop serve` keeps the API token it generates when FIXLOOP_API_TOKEN is unset. */
export const DEFAULT_API_TOKEN_FILE = './data/api-token';
/** How often a running process reconciles stranded runs, claims and dispatches (decisions 0013, 0014). */
export const DEFAULT_ADOPT_EVERY_MS = 30_000;

/**
 * WEBHOOK_MAX_INFLIGHT_BYTES' default: one body at GitHub's 25 MiB cap with room for small ones
 * beside it. With what the garbage collector has yet to free, a flood of forged bodies then stays
 * within about 100 MB of an idle process (A1; measured in test/edge.test.ts).
 */
export const DEFAULT_MAX_INFLIGHT_BYTES = 32 * 1024 * 1024;

const filePath = z.string().refine((v) => !v.includes('\0'), 'must be a file path');

/** Issue 31: an API token shorter than this is refused off loopback (a token is the whole API and the dashboard). */
export const MIN_API_TOKEN_LENGTH = 32;

/** L2: where a GitLab project's workspace token comes from (GITLAB_WORKSPACE_TOKEN; docs/gitlab.md). */
export const GITLAB_WORKSPACE_TOKENS = ['project', 'configured'] as const;
export type GitLabWorkspaceToken = (typeof GITLAB_WORKSPACE_TOKENS)[number];

/** Each secret that may instead be read from a file, and the variable naming that file (L3). */
export const SECRET_FILE_VARIABLES = [
  ['WEBHOOK_SECRET', 'WEBHOOK_SECRET_FILE'],
  ['GITLAB_WEBHOOK_SECRET', 'GITLAB_WEBHOOK_SECRET_FILE'],
  ['GITLAB_WEBHOOK_SIGNING_TOKEN', 'GITLAB_WEBHOOK_SIGNING_TOKEN_FILE'],
  ['DATABASE_URL', 'DATABASE_URL_FILE'],
  ['GITHUB_TOKEN', 'GITHUB_TOKEN_FILE'],
  ['GITLAB_TOKEN', 'GITLAB_TOKEN_FILE'],
  ['FIXLOOP_RUNNER_SECRET', 'FIXLOOP_RUNNER_SECRET_FILE'],
  ['FIXLOOP_MENTION_TOKEN', 'FIXLOOP_MENTION_TOKEN_FILE'],
  ['FIXLOOP_GITLAB_MENTION_TOKEN', 'FIXLOOP_GITLAB_MENTION_TOKEN_FILE'],
  ['FIXLOOP_SLACK_WEBHOOK_URL', 'FIXLOOP_SLACK_WEBHOOK_URL_FILE'],
  ['FIXLOOP_NOTICE_WEBHOOK_SECRET', 'FIXLOOP_NOTICE_WEBHOOK_SECRET_FILE'],
  ['FIXLOOP_METRICS_TOKEN', 'FIXLOOP_METRICS_TOKEN_FILE'],
] as const;

/** Is this HOST reachable only from the machine itself? Then the API may run without a token. */
export function isLoopbackHost(host: string): boolean {
  return ['127.0.0.1', '::1', 'localhost'].includes(host.toLowerCase());
}

/** A comma-separated list (secrets rotate by listing the new one beside the old), blanks dropped. */
const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
);
const secretList = commaList.pipe(z.array(z.string()).min(1, 'must hold at least one non-empty secret'));

/**
 * The environment, keyed by variable name so errors name the variable. Values arrive trimmed and
 * with blank ones removed (a `VAR=` in a compose file means "unset"). The budget variable is not
 * here: it is parsed leniently by parseMaxAttempts (C1).
 */
export const envSchema = z
  .object({
    PORT: port.default(3000),
    HOST: z.string().default('127.0.0.1'),
    DATABASE_URL: z
      .string()
      .regex(/^(sqlite:|postgres:\/\/|postgresql:\/\/)/, 'must start with sqlite: or postgres://')
      .default('sqlite:./data/fixloop.sqlite'),
    /**
     * The GitHub App's webhook secret(s), comma-separated to rotate; unset before GitHub is connected
     * (the setup page stores one, decision 0050), when the GitHub webhook answers 503.
     */
    WEBHOOK_SECRET: secretList.optional(),
    /** Q1 (decision 0032): the GitLab webhooks' secret token(s), comma-separated to rotate; unset, the GitLab route answers 404. */
    GITLAB_WEBHOOK_SECRET: secretList.optional(),
    /** Q1 (decision 0036): GitLab's webhook signing token(s) (`whsec_…`), comma-separated to rotate; each body's signature must verify. */
    GITLAB_WEBHOOK_SIGNING_TOKEN: commaList
      .pipe(
        z
          .array(
            z
              .string()
              .regex(
                /^(whsec_)?[A-Za-z0-9+/]{16,}={0,2}$/,
                'must be a signing token as GitLab shows it (whsec_ and base64)',
              ),
          )
          .min(1, 'must hold at least one non-empty token'),
      )
      .optional(),
    WEBHOOK_MAX_BYTES: positiveInt.default(25 * 1024 * 1024),
    /** Bytes held at once for bodies not yet verified (A1); unset → DEFAULT_MAX_INFLIGHT_BYTES, or WEBHOOK_MAX_BYTES if larger. */
    WEBHOOK_MAX_INFLIGHT_BYTES: positiveInt.optional(),
    /** A1: within GitHub's own 10 s per delivery; a slower sender has failed on GitHub's side anyway. */
    FIXLOOP_HEADERS_TIMEOUT_MS: positiveInt.default(5_000),
    FIXLOOP_REQUEST_TIMEOUT_MS: positiveInt.default(10_000),
    /** Open connections at most; at the cap the longest-idle one makes room (src/http/connection-cap.ts). */
    FIXLOOP_MAX_CONNECTIONS: positiveInt.default(512),
    FIXLOOP_API_TOKEN: z.string().optional(),
    /** N2: a bearer token that opens /metrics only, for a scraper that should not hold the API token. */
    FIXLOOP_METRICS_TOKEN: z.string().optional(),
    FIXLOOP_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Issue 31: where a resumed agent reaches fixloop's API and MCP; unset → FIXLOOP_PUBLIC_URL (the address people use). */
    FIXLOOP_AGENT_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Issue 31: which proxy in front is believed about scheme, host and client (X-Forwarded-*, Forwarded); off by default. */
    FIXLOOP_TRUST_PROXY: trustProxy.optional(),
    FIXLOOP_WORK_DIR: z.string().default('./data/runs'),
    FIXLOOP_RUNNER_SECRET: z.string().optional(),
    FIXLOOP_MENTION_TOKEN: z.string().optional(),
    /** Issue 35: the person's GitLab token the mention runner comments with on merge requests (`as: user`). */
    FIXLOOP_GITLAB_MENTION_TOKEN: z.string().optional(),
    /** Issue 35 item 3: the OIDC issuer whose tokens the actions runner's workflows exchange for a run token. */
    FIXLOOP_ACTIONS_OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
    /** Issue 35 item 6: the issuer of GitLab CI's ID tokens (a gitlab Work's pipelines); unset → GITLAB_URL. */
    FIXLOOP_GITLAB_OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
    /** G1/P4: the Slack incoming webhook of the one `slack` notice sink (one is added when none is configured). */
    FIXLOOP_SLACK_WEBHOOK_URL: sinkUrl.optional(),
    /** G1/P4: the signing secret of the one `webhook` notice sink. */
    FIXLOOP_NOTICE_WEBHOOK_SECRET: z.string().optional(),
    /** The `_FILE` twins of the secrets (L3): read by config.ts before validation, never both with the variable. */
    WEBHOOK_SECRET_FILE: filePath.optional(),
    GITLAB_WEBHOOK_SECRET_FILE: filePath.optional(),
    GITLAB_WEBHOOK_SIGNING_TOKEN_FILE: filePath.optional(),
    DATABASE_URL_FILE: filePath.optional(),
    GITHUB_TOKEN_FILE: filePath.optional(),
    GITLAB_TOKEN_FILE: filePath.optional(),
    FIXLOOP_RUNNER_SECRET_FILE: filePath.optional(),
    FIXLOOP_MENTION_TOKEN_FILE: filePath.optional(),
    FIXLOOP_GITLAB_MENTION_TOKEN_FILE: filePath.optional(),
    FIXLOOP_METRICS_TOKEN_FILE: filePath.optional(),
    FIXLOOP_SLACK_WEBHOOK_URL_FILE: filePath.optional(),
    FIXLOOP_NOTICE_WEBHOOK_SECRET_FILE: filePath.optional(),
    /** R2: the `session` runner's vendor API key, read from this file only (never a variable nor the config file). */
    FIXLOOP_SESSION_API_KEY_FILE: filePath.optional(),
    /** R2: the signing secret of the vendor's status webhook (Cursor), read from this file only. */
    FIXLOOP_SESSION_WEBHOOK_SECRET_FILE: filePath.optional(),
    FIXLOOP_AGENT_ISOLATION: z.enum(ISOLATION_MODES).optional(),
    FIXLOOP_AGENT_USER: agentUserSpec.optional(),
    /** Where the generated API token is kept when FIXLOOP_API_TOKEN is unset; read as the token when it exists. */
    FIXLOOP_API_TOKEN_FILE: filePath.default(DEFAULT_API_TOKEN_FILE),
    /** Attempts untouched this long are reconciled at start-up; unset → the dialect's default (main.ts). */
    FIXLOOP_RECONCILE_GRACE_MS: milliseconds('non-negative').optional(),
    /** The period of the running reconciliation pass; never 0, which would make setInterval spin. */
    FIXLOOP_ADOPT_EVERY_MS: milliseconds('positive').default(DEFAULT_ADOPT_EVERY_MS),
    /** V4: how long a shutdown lets running agents finish (0 = not at all); unset → `shutdownGraceMs`. */
    FIXLOOP_SHUTDOWN_GRACE_MS: milliseconds('non-negative').optional(),
    /** Crash tests only: `<point>:kill` dies by SIGKILL at that point of the pipeline. */
    FIXLOOP_FAULT: z
      .string()
      .regex(
        new RegExp(`^(${FAULT_POINTS.join('|')}):kill$`),
        `must be "<point>:kill", <point> one of ${FAULT_POINTS.join(', ')}`,
      )
      .transform((v) => ({ point: v.slice(0, -':kill'.length) as FaultPoint, action: 'kill' as const }))
      .optional(),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    APP_ID: z.string().regex(/^\d+$/, 'must be the numeric GitHub App id').optional(),
    PRIVATE_KEY: z.string().optional(),
    PRIVATE_KEY_PATH: z.string().optional(),
    GITHUB_TOKEN: z.string().optional(),
    GHE_HOST: z
      .string()
      .regex(/^[A-Za-z0-9.-]+(:\d+)?$/, 'must be a host name, e.g. github.example.com')
      .optional(),
    GHE_PROTOCOL: z.enum(['https', 'http']).default('https'),
    /** An explicit REST base URL (tests, proxies); wins over GHE_HOST. */
    GITHUB_API_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Q1: a GitLab project or group access token (scope `api`) for reading and writing merge requests. */
    GITLAB_TOKEN: z.string().optional(),
    /** Q1: the GitLab instance (gitlab.com or self-managed), without /api/v4. */
    GITLAB_URL: z.url({ protocol: /^https?$/ }).default('https://gitlab.com'),
    /**
     * Issue 31: provider URLs (GITHUB_API_URL, GHE_HOST, GITLAB_URL, clone URLs) may be plain http to
     * hosts other than this machine; a lab's opt-out, warned about at every start (insecure-hosts.ts).
     */
    FIXLOOP_ALLOW_INSECURE_HOSTS: z
      .enum(['0', '1', 'true', 'false'], { message: 'must be 1 (allow) or 0' })
      .transform((v) => v === '1' || v === 'true')
      .default(false),
    /**
     * L2 for a GitLab project: the token a workspace clones and the agent pushes with. `project`: a
     * project access token minted for the one project (write_repository, Developer, expires the next
     * day); a refusal fails the run. `configured`: GITLAB_TOKEN itself when minting is refused.
     */
    GITLAB_WORKSPACE_TOKEN: z.enum(GITLAB_WORKSPACE_TOKENS).default('project'),
  })
  .superRefine((env, ctx) => {
    if (env.WEBHOOK_MAX_INFLIGHT_BYTES !== undefined && env.WEBHOOK_MAX_INFLIGHT_BYTES < env.WEBHOOK_MAX_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_MAX_INFLIGHT_BYTES'],
        message: `must be at least WEBHOOK_MAX_BYTES (${env.WEBHOOK_MAX_BYTES}), or a body at the cap could never be read`,
      });
    }
    if (env.FIXLOOP_HEADERS_TIMEOUT_MS > env.FIXLOOP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['FIXLOOP_HEADERS_TIMEOUT_MS'],
        message: `must not be longer than FIXLOOP_REQUEST_TIMEOUT_MS (${env.FIXLOOP_REQUEST_TIMEOUT_MS}), which includes the headers`,
      });
    }
    if (!isLoopbackHost(env.HOST) && env.FIXLOOP_API_TOKEN === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['FIXLOOP_API_TOKEN'],
        message: `is required when HOST (${env.HOST}) is not loopback (127.0.0.1, ::1, localhost): the API would be open to the network`,
      });
    }
    if (
      !isLoopbackHost(env.HOST) &&
      env.FIXLOOP_API_TOKEN !== undefined &&
      env.FIXLOOP_API_TOKEN.length < MIN_API_TOKEN_LENGTH
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['FIXLOOP_API_TOKEN'],
        message:
          `is ${env.FIXLOOP_API_TOKEN.length} characters; at least ${MIN_API_TOKEN_LENGTH} are required when HOST (${env.HOST}) ` +
          'is not loopback, or it can be guessed from the network: generate one with `openssl rand -base64 32`',
      });
    }
    if (env.PRIVATE_KEY !== undefined && env.PRIVATE_KEY_PATH !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['PRIVATE_KEY_PATH'],
        message: 'set PRIVATE_KEY or PRIVATE_KEY_PATH, not both',
      });
    }
    const hasKey = env.PRIVATE_KEY !== undefined || env.PRIVATE_KEY_PATH !== undefined;
    if (env.APP_ID !== undefined && !hasKey) {
      ctx.addIssue({ code: 'custom', path: ['PRIVATE_KEY'], message: 'is required with APP_ID (or PRIVATE_KEY_PATH)' });
    }
    if (env.APP_ID === undefined && hasKey) {
      ctx.addIssue({ code: 'custom', path: ['APP_ID'], message: 'is required with a private key' });
    }
  });
export type EnvConfig = z.output<typeof envSchema>;

/** The variables envSchema reads, plus those read outside it. */
export const ENV_VARIABLES = [
  ...Object.keys(envSchema.shape),
  'FIXLOOP_CONFIG',
  'TASK_CI_AUTO_RESUME_MAX_ATTEMPTS',
  'TASK_MAX_GRANTS',
] as const;
