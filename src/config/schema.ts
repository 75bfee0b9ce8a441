// The zod schema of fixloop's configuration (SPEC M5, C1, A5, L1): the config file's keys and the
// environment variables, validated at the boundary and naming only the fields fixloop reads.
// Cross-field rules (one data repo per Work, repositories under the Work's account — decision
// 0006 (c) — a repository in one Work only) live here too, so every config error reads the same.
import { z } from 'zod';
import { MAX_ATTEMPTS_LIMIT } from '../core/budget.js';

export const REPOSITORY_ROLES = ['data', 'website', 'other'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const repositoryName = z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be "owner/name"');

const repositorySchema = z.strictObject({
  name: repositoryName,
  role: z.enum(REPOSITORY_ROLES),
  /** The checks the green gate requires (B4); absent → branch protection, else every check on the head. */
  requiredChecks: z.array(z.string().min(1)).optional(),
  /** A skipped check passes only when its decider succeeded (B4): skipped check name → deciding check. */
  skipDeciders: z.record(z.string().min(1), z.string().min(1)).optional(),
  /** Pull requests opened on a matching branch or by a listed author become Tasks (issue 3 §9). */
  adopt: z
    .strictObject({
      branches: z.array(z.string().min(1)).default([]),
      authors: z.array(z.string().min(1)).default([]),
    })
    .optional(),
});

const workSchema = z
  .strictObject({
    name: z.string().trim().min(1),
    account: z.string().trim().min(1),
    repositories: z.array(repositorySchema).min(1).max(3),
  })
  .superRefine((work, ctx) => {
    const data = work.repositories.filter((r) => r.role === 'data').length;
    if (data !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['repositories'],
        message: `a Work needs exactly one repository with role "data" (found ${data})`,
      });
    }
    const seen = new Set<string>();
    work.repositories.forEach((r, i) => {
      const name = r.name.toLowerCase();
      if (!name.startsWith(`${work.account.toLowerCase()}/`)) {
        ctx.addIssue({
          code: 'custom',
          path: ['repositories', i, 'name'],
          message: `"${r.name}" is not under the Work's account "${work.account}"`,
        });
      }
      if (seen.has(name)) {
        ctx.addIssue({ code: 'custom', path: ['repositories', i, 'name'], message: `"${r.name}" is listed twice` });
      }
      seen.add(name);
    });
  });

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const commandRunnerSchema = z.strictObject({
  kind: z.literal('command'),
  /** argv of the agent; an empty list means "no runner configured". */
  command: z.array(z.string().min(1)).default([]),
  envAllow: z.array(envName).default([]),
  cwd: z.string().min(1).optional(),
});

const httpRunnerSchema = z.strictObject({
  kind: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }),
  /** May instead come from FIXLOOP_RUNNER_SECRET, which wins when both are set. */
  secret: z.string().min(1).optional(),
});

/** The config file (YAML or JSON). Unknown keys are errors, so a typo never silently does nothing. */
export const configFileSchema = z
  .strictObject({
    works: z.array(workSchema).default([]),
    runner: z.discriminatedUnion('kind', [commandRunnerSchema, httpRunnerSchema]).optional(),
    maxAttempts: z.int().min(0).max(MAX_ATTEMPTS_LIMIT).optional(),
    /** Reviewer bots whose findings count as rejections (F1); any other bot never rings (F2). */
    reviewBots: z.array(z.string().min(1)).default([]),
    poll: z.strictObject({ intervalSeconds: z.int().min(5).max(3600).default(120) }).default({ intervalSeconds: 120 }),
    handoff: z.strictObject({ parkAfterHours: z.number().positive().max(24 * 30).default(8) }).default({ parkAfterHours: 8 }),
    /** K6, K9: the cost ceiling per Task and the wake-up caps. Amounts are in one currency (USD by convention). */
    guards: z
      .strictObject({
        costCeiling: z.number().nonnegative().nullable().default(null),
        expectedAttemptCost: z.number().nonnegative().default(1),
        ciMinutePrice: z.number().nonnegative().default(0.008),
        wakesPerWindow: z.int().min(1).default(5),
        wakeWindowMinutes: z.number().positive().default(10),
        wakesSinceHuman: z.int().min(1).default(20),
      })
      .prefault({}),
  })
  .superRefine((file, ctx) => {
    const names = new Set<string>();
    const owner = new Map<string, string>();
    file.works.forEach((work, i) => {
      if (names.has(work.name)) {
        ctx.addIssue({ code: 'custom', path: ['works', i, 'name'], message: `Work "${work.name}" is defined twice` });
      }
      names.add(work.name);
      work.repositories.forEach((r, j) => {
        const name = r.name.toLowerCase();
        const other = owner.get(name);
        if (other !== undefined && other !== work.name) {
          ctx.addIssue({
            code: 'custom',
            path: ['works', i, 'repositories', j, 'name'],
            message: `"${r.name}" already belongs to Work "${other}"; a repository routes to one Work (A5)`,
          });
        }
        owner.set(name, work.name);
      });
    });
  });
export type ConfigFile = z.output<typeof configFileSchema>;

const port = z
  .string()
  .regex(/^\d{1,5}$/, 'must be a port number')
  .transform(Number)
  .pipe(z.int().max(65535, 'must be a port number (0–65535)'));

const positiveInt = z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number).pipe(z.int().min(1));

/** Is this HOST reachable only from the machine itself? Then the API may run without a token. */
export function isLoopbackHost(host: string): boolean {
  return ['127.0.0.1', '::1', 'localhost'].includes(host.toLowerCase());
}

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
    WEBHOOK_SECRET: z
      .string({ error: 'is required (the GitHub App webhook secret; comma-separated to rotate)' })
      .transform((v) => v.split(',').map((s) => s.trim()).filter((s) => s !== ''))
      .pipe(z.array(z.string()).min(1, 'must hold at least one non-empty secret')),
    WEBHOOK_MAX_BYTES: positiveInt.default(25 * 1024 * 1024),
    FIXLOOP_API_TOKEN: z.string().optional(),
    FIXLOOP_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    FIXLOOP_WORK_DIR: z.string().default('./data/runs'),
    FIXLOOP_RUNNER_SECRET: z.string().optional(),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    APP_ID: z.string().regex(/^\d+$/, 'must be the numeric GitHub App id').optional(),
    PRIVATE_KEY: z.string().optional(),
    PRIVATE_KEY_PATH: z.string().optional(),
    GITHUB_TOKEN: z.string().optional(),
    GHE_HOST: z.string().regex(/^[A-Za-z0-9.-]+(:\d+)?$/, 'must be a host name, e.g. github.example.com').optional(),
    GHE_PROTOCOL: z.enum(['https', 'http']).default('https'),
    /** An explicit REST base URL (tests, proxies); wins over GHE_HOST. */
    GITHUB_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  })
  .superRefine((env, ctx) => {
    if (!isLoopbackHost(env.HOST) && env.FIXLOOP_API_TOKEN === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['FIXLOOP_API_TOKEN'],
        message: `is required when HOST (${env.HOST}) is not loopback (127.0.0.1, ::1, localhost): the API would be open to the network`,
      });
    }
    if (env.PRIVATE_KEY !== undefined && env.PRIVATE_KEY_PATH !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['PRIVATE_KEY_PATH'], message: 'set PRIVATE_KEY or PRIVATE_KEY_PATH, not both' });
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

/** The variables envSchema reads, plus the two read outside it. */
export const ENV_VARIABLES = [...Object.keys(envSchema.shape), 'FIXLOOP_CONFIG', 'TASK_CI_AUTO_RESUME_MAX_ATTEMPTS'] as const;
