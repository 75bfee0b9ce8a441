// The zod schema of fixloop's configuration (SPEC M5, C1, A5, L1): the config file's keys and the
// environment variables, validated at the boundary and naming only the fields fixloop reads.
// Cross-field rules (one data repo per Work, repositories under the Work's account — decision
// 0006 (c) — a repository in one Work only) live here too, so every config error reads the same.
import { isIP } from 'node:net';
import { z } from 'zod';
import { MAX_ATTEMPTS_LIMIT } from '../core/budget.js';
import { MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import { checkPromptTemplate, TEMPLATE_PLACEHOLDERS, type TemplateProblem } from '../core/prompt-frames.js';
import { CLAUDE_PERMISSION_MODES, CODEX_SANDBOX_MODES, MCP_TRANSPORTS } from './preset-options.js';
import { AUTHOR_ASSOCIATIONS, MINIMUM_PERMISSIONS } from '../core/standing.js';
import { DEFAULT_MATRIX_SETTLE_MINUTES } from '../core/unchanged-failure.js';
import { DEFAULT_NO_CI_MINUTES } from '../core/no-ci.js';
import { outboundUrlProblem } from '../core/signed-post.js';
import { PROVIDERS } from '../core/types.js';

const REPOSITORY_ROLES = ['data', 'website', 'other'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `owner/name`; a GitLab project may sit in subgroups (`group/sub/name`), checked per Work below. */
const repositoryName = z.string().regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/, 'must be "owner/name"');

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
    /** Where the repositories live (issue 19): GitLab Works take GitLab's webhooks only (decision 0032). */
    provider: z.enum(PROVIDERS).default('github'),
    repositories: z.array(repositorySchema).min(1).max(3),
    /** F1/F2: whose reviews and comments count, by `author_association`; absent → OWNER, MEMBER, COLLABORATOR. */
    trustedAssociations: z.array(z.enum(AUTHOR_ASSOCIATIONS)).optional(),
    /** F1/F2 on GitHub: the least repository permission a person needs to steer; absent → write (decision 0042). */
    minimumPermission: z.enum(MINIMUM_PERMISSIONS).optional(),
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
      if (work.provider === 'github' && name.split('/').length !== 2) {
        ctx.addIssue({
          code: 'custom',
          path: ['repositories', i, 'name'],
          message: `"${r.name}" must be "owner/name" (only a gitlab Work's projects may sit in subgroups)`,
        });
      }
      seen.add(name);
    });
    if (work.provider === 'gitlab' && work.minimumPermission !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['minimumPermission'],
        message:
          'minimumPermission is for GitHub Works; on GitLab a person counts by their member access level (trustedAssociations)',
      });
    }
  });

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** A value a preset puts after a CLI option: never empty, never read as an option, one line. */
const optionValue = z
  .string()
  .min(1)
  .refine((v) => !v.startsWith('-') && !/[\0\r\n]/.test(v), 'must not start with "-" nor contain a line break');

/** `presetOptions` of `preset: claude-code-resume` (see claudeCodeResume in src/runners/presets.ts). */
const claudeCodeResumeOptionsSchema = z
  .strictObject({
    model: optionValue.optional(),
    maxTurns: z.int().min(1).optional(),
    permissionMode: z.enum(CLAUDE_PERMISSION_MODES).optional(),
    /** Replaces the default list (DEFAULT_CLAUDE_ALLOWED_TOOLS). */
    allowedTools: z.array(optionValue).optional(),
    /** Default `http` (fixloop's /mcp with the run token); `stdio` starts `fixloop mcp` from the agent's PATH. */
    mcp: z.enum(MCP_TRANSPORTS).optional(),
    /** An MCP config file of your own instead of fixloop's; null: leave MCP to Claude's own configuration. */
    mcpConfig: optionValue.nullable().optional(),
  })
  .refine((o) => o.mcp === undefined || o.mcpConfig === undefined, {
    message: 'set `mcp` (fixloop writes the MCP config) or `mcpConfig` (your own), not both',
    path: ['mcp'],
  });

/** `presetOptions` of `preset: codex-exec-resume` (see codexExecResume in src/runners/presets.ts). */
const codexExecResumeOptionsSchema = z
  .strictObject({
    model: optionValue.optional(),
    sandbox: z.enum(CODEX_SANDBOX_MODES).optional(),
    /** More absolute paths the workspace-write sandbox may write (the checkout and its .git always). */
    writableRoots: z
      .array(z.string().refine((p) => p.startsWith('/') && !/[\0\r\n"]/.test(p), 'must be an absolute path'))
      .optional(),
    /** Default `http` (fixloop's /mcp with the run token); `stdio` starts `fixloop mcp` from the agent's PATH. */
    mcp: z.enum(MCP_TRANSPORTS).optional(),
    /** A stdio MCP server of your own; null: no MCP server is given to Codex. */
    mcpServer: z
      .strictObject({
        name: z
          .string()
          .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, "_" or "-"')
          .optional(),
        command: z.string().min(1),
        args: z.array(z.string()).optional(),
      })
      .nullable()
      .optional(),
  })
  .refine((o) => o.mcp === undefined || o.mcpServer === undefined, {
    message: "set `mcp` (fixloop's server) or `mcpServer` (your own), not both",
    path: ['mcp'],
  });

/** The ready-made command runners (SPEC L1) and the schema of each one's `presetOptions`. */
export const RUNNER_PRESETS = {
  'claude-code-resume': claudeCodeResumeOptionsSchema,
  'codex-exec-resume': codexExecResumeOptionsSchema,
} as const;
export type RunnerPresetName = keyof typeof RUNNER_PRESETS;
const RUNNER_PRESET_NAMES = Object.keys(RUNNER_PRESETS) as [RunnerPresetName, ...RunnerPresetName[]];

const WORKSPACE_LAYOUTS = ['per-run', 'per-task'] as const;

/** L3: how the command runner keeps the agent from fixloop's secrets (src/runners/isolation.ts). */
export const ISOLATION_MODES = ['user', 'bwrap', 'none'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];
/** The agent's user: a name in /etc/passwd, `uid` or `uid:gid`. */
const agentUserSpec = z
  .string()
  .trim()
  .regex(/^([a-z_][a-z0-9_.-]*\$?|\d+(:\d+)?)$/i, 'must be a user name, "uid" or "uid:gid"');

/** Why a path cannot name a file the workspace writes into the checkout; null when it can. */
function workspaceFileProblem(path: string): string | null {
  const segs = path.split('/');
  if (path === '' || /[\0\\]/.test(path)) return 'is not a plain relative path';
  if (path.startsWith('/')) return 'must be relative to the checkout';
  if (segs.some((s) => s === '' || s === '.' || s === '..')) return 'must not contain empty, "." or ".." segments';
  if (segs[0]!.toLowerCase() === '.git') return 'must not be inside .git';
  return null;
}

/** A line of git config: no line breaks or NULs. */
const gitConfigValue = z
  .string()
  .trim()
  .min(1)
  .refine((v) => !/[\0\r\n]/.test(v), 'must be one line');

/** L2: a fresh checkout of the Task's branch per run (src/runners/workspace.ts). */
const workspaceSchema = z.strictObject({
  /**
   * What to clone, `{repository}` standing for `owner/name`: an http(s) URL (the scoped token is
   * sent to it), a file:// URL or an absolute path. Default: the GitHub web host (see config.ts).
   */
  cloneUrl: z
    .string()
    .refine(
      (v) => v.includes('{repository}'),
      'must contain {repository} (owner/name), e.g. "https://github.com/{repository}.git"',
    )
    .refine((v) => /^(https?:\/\/|file:\/\/|\/)/i.test(v), 'must be an http(s) or file:// URL, or an absolute path')
    .optional(),
  /**
   * What to clone for a gitlab Work's project, `{repository}` standing for its path
   * (`group/sub/project`). Default: `cloneUrl` when that is set, else `GITLAB_URL/{repository}.git`.
   */
  gitlabCloneUrl: z
    .string()
    .refine(
      (v) => v.includes('{repository}'),
      'must contain {repository} (group/project), e.g. "https://gitlab.com/{repository}.git"',
    )
    .refine((v) => /^(https?:\/\/|file:\/\/|\/)/i.test(v), 'must be an http(s) or file:// URL, or an absolute path')
    .optional(),
  depth: z.int().min(1).max(100_000).default(50),
  /** Default `per-task` with the claude-code-resume preset (resumes need a stable path), else `per-run`. */
  layout: z.enum(WORKSPACE_LAYOUTS).optional(),
  /** Each git command's time limit. */
  timeoutSeconds: z.int().min(1).max(3600).default(300),
  /** Author and committer of the agent's commits. */
  identity: z.strictObject({ name: gitConfigValue, email: gitConfigValue }).optional(),
  /** The agent's instructions and MCP config, checkout path → content; the branch's own never count. */
  files: z
    .record(z.string(), z.string())
    .superRefine((files, ctx) => {
      for (const path of Object.keys(files)) {
        const problem = workspaceFileProblem(path);
        if (problem)
          ctx.addIssue({ code: 'custom', path: [path], message: `file path ${JSON.stringify(path)} ${problem}` });
      }
    })
    .default({}),
});

/** An operator's prompt template (I4): checked at load, so a typo never reaches a run. */
const promptTemplateSchema = z.string().superRefine((template, ctx) => {
  for (const p of checkPromptTemplate(template)) ctx.addIssue({ code: 'custom', message: templateProblemText(p) });
});

function templateProblemText(p: TemplateProblem): string {
  return p.kind === 'unknown_placeholder'
    ? `unknown placeholder {{${p.placeholder}}}; the known ones are ${TEMPLATE_PLACEHOLDERS.map((n) => `{{${n}}}`).join(', ')} (the protocol block is always appended and cannot be placed)`
    : `placeholder {{${p.placeholder}}} may appear at most once`;
}

const commandRunnerSchema = z
  .strictObject({
    kind: z.literal('command'),
    /** A ready-made agent invocation (src/runners/presets.ts); exactly one of `preset` and `command`. */
    preset: z.enum(RUNNER_PRESET_NAMES).optional(),
    /** The preset's own options, checked against RUNNER_PRESETS[preset]. */
    presetOptions: z.record(z.string(), z.unknown()).optional(),
    /** argv of the agent; an empty list means "no runner configured". */
    command: z.array(z.string().min(1)).optional(),
    envAllow: z.array(envName).default([]),
    /** For a hand-written `command`: the prompt file becomes the agent's stdin. Presets decide it themselves. */
    stdinFromPromptFile: z.boolean().optional(),
    cwd: z.string().min(1).optional(),
    workspace: workspaceSchema.optional(),
    promptTemplate: promptTemplateSchema.optional(),
    /** L3; FIXLOOP_AGENT_ISOLATION wins. Unset: `user` when fixloop runs as root, else required. */
    isolation: z.enum(ISOLATION_MODES).optional(),
    /** L3; FIXLOOP_AGENT_USER wins. Unset: `nobody`. */
    user: agentUserSpec.optional(),
  })
  .superRefine((r, ctx) => {
    if (r.preset !== undefined && r.command !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'set `preset` or `command`, not both' });
    }
    if (r.preset === undefined && r.command === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['preset'],
        message: `a command runner needs \`preset\` (${RUNNER_PRESET_NAMES.join(' or ')}) or \`command\` (argv; [] for no runner)`,
      });
    }
    if (r.preset === undefined && r.presetOptions !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['presetOptions'], message: 'is only read with `preset`' });
    }
    if (r.preset !== undefined && r.stdinFromPromptFile !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['stdinFromPromptFile'],
        message: 'is for a hand-written `command`; a preset always reads the prompt from stdin',
      });
    }
    if (r.preset !== undefined) {
      const parsed = RUNNER_PRESETS[r.preset].safeParse(r.presetOptions ?? {});
      for (const issue of parsed.error?.issues ?? []) {
        ctx.addIssue({
          code: 'custom',
          path: ['presetOptions', ...issue.path],
          message: `${issue.message} (preset ${r.preset})`,
        });
      }
    }
    if (r.cwd !== undefined && r.workspace !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['workspace'],
        message: "set `cwd` or `workspace`, not both (the workspace is the agent's working directory)",
      });
    }
  });

const httpRunnerSchema = z.strictObject({
  kind: z.literal('http'),
  /** The run token travels in the body: https, or http only to this machine (issue 31), as the runner checks. */
  url: z.url({ protocol: /^https?$/ }).superRefine((v, ctx) => {
    const problem = outboundUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  /** May instead come from FIXLOOP_RUNNER_SECRET, which wins when both are set. */
  secret: z.string().min(1).optional(),
  promptTemplate: promptTemplateSchema.optional(),
});

/** A notice sink's URL: https, or http only to this machine (G1, P4; decision 0025). */
const sinkUrl = z.string().superRefine((v, ctx) => {
  const problem = outboundUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
/** A sink's name: its outbox rows and idempotency keys carry it, so it stays short and plain. */
const sinkName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/i, 'must be letters, digits, "_" or "-" (at most 40)');

/** G1/P4: where Inbox notices are also sent. `url` and `secret` may come from the environment instead. */
const noticesSchema = z.strictObject({
  sinks: z
    .array(
      z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('slack'), name: sinkName.optional(), url: sinkUrl.optional() }),
        z.strictObject({
          kind: z.literal('webhook'),
          name: sinkName.optional(),
          url: sinkUrl,
          secret: z.string().min(1).optional(),
        }),
      ]),
    )
    .default([]),
  /** Tries per delivery, and the backoff between them (decision 0025). */
  retry: z
    .strictObject({
      maxAttempts: z.int().min(1).max(100).default(10),
      initialSeconds: z.number().min(0.01).max(3600).default(30),
      maxSeconds: z.number().min(0.01).max(86_400).default(3600),
    })
    .refine((r) => r.maxSeconds >= r.initialSeconds, {
      message: 'maxSeconds must not be less than initialSeconds',
      path: ['maxSeconds'],
    })
    .prefault({}),
  /** One try's time limit. */
  timeoutSeconds: z.number().min(0.1).max(120).default(10),
});

/** V4: how long a shutdown lets running agents finish before it stops them (decision 0043). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 60_000;

/** The config file (YAML or JSON). Unknown keys are errors, so a typo never silently does nothing. */
export const configFileSchema = z
  .strictObject({
    works: z.array(workSchema).default([]),
    runner: z.discriminatedUnion('kind', [commandRunnerSchema, httpRunnerSchema]).optional(),
    maxAttempts: z.int().min(0).max(MAX_ATTEMPTS_LIMIT).optional(),
    /** V4, K5: a person's grants of one more attempt per Task across its life (TASK_MAX_GRANTS wins). */
    maxGrants: z.int().min(0).max(MAX_GRANTS_LIMIT).optional(),
    /** Reviewer bots whose findings count as rejections (F1); any other bot never rings (F2). */
    reviewBots: z.array(z.string().min(1)).default([]),
    /** V4: how long a shutdown lets running agents finish, in ms (FIXLOOP_SHUTDOWN_GRACE_MS wins). */
    shutdownGraceMs: z
      .int()
      .min(0)
      .max(24 * 3_600_000)
      .default(DEFAULT_SHUTDOWN_GRACE_MS),
    poll: z
      .strictObject({
        intervalSeconds: z.int().min(5).max(3600).default(120),
        /** N3: pull requests read in full at once; GitHub's secondary limits ask for few in flight. */
        concurrency: z.int().min(1).max(32).default(8),
        /** N3: the share of each rate limit the poll leaves for webhooks' reads, writes and `pr checks`. */
        rateLimitReserve: z.number().min(0).max(0.9).default(0.2),
        /** N3: a base branch's required checks (its protection's answer, 404 included) are reused this long. */
        protectionTtlSeconds: z.int().min(0).max(86_400).default(600),
        /** N3: glance at many pull requests per GraphQL query; false reads each by REST (ETags). */
        bulkReads: z.boolean().default(true),
      })
      .prefault({}),
    handoff: z
      .strictObject({
        parkAfterHours: z
          .number()
          .positive()
          .max(24 * 30)
          .default(8),
        /** P3: the `fixloop` commit status on the head, saying what the loop is doing. */
        commitStatus: z.boolean().default(true),
      })
      .default({ parkAfterHours: 8, commitStatus: true }),
    /** K6, K9: the cost ceiling per Task and the wake-up caps. Amounts are in one currency (USD by convention). */
    guards: z
      .strictObject({
        costCeiling: z.number().nonnegative().nullable().default(null),
        /** Issue 33: the currency every amount is in, as the dashboard writes it (ISO 4217 code). */
        currency: z
          .string()
          .regex(/^[A-Z]{3}$/)
          .default('USD'),
        expectedAttemptCost: z.number().nonnegative().default(1),
        ciMinutePrice: z.number().nonnegative().default(0.008),
        wakesPerWindow: z.int().min(1).default(5),
        wakeWindowMinutes: z.number().positive().default(10),
        wakesSinceHuman: z.int().min(1).default(20),
      })
      .prefault({}),
    notices: noticesSchema.prefault({}),
    /** T2 (issue 17): re-runs of a head's failed jobs before the agent is paid to look (app/rerun.ts). */
    triage: z
      .strictObject({
        /** Re-runs per (Task, head commit), claimed in the ledger like attempts; 0 turns re-runs off. */
        rerunsPerHead: z.int().min(0).max(5).default(1),
        /** T4: minutes a new head after an attempt may go without any check run or status; 0 turns it off. */
        noCiMinutes: z
          .number()
          .min(0)
          .max(24 * 60)
          .default(DEFAULT_NO_CI_MINUTES),
        /** T1: read the base branch's checks, and refuse an attempt for a check red there too. */
        redOnBase: z.boolean().default(true),
        /** T6: minutes a new head's checks get to report before a failure still missing counts as changed (decision 0029). */
        matrixSettleMinutes: z
          .number()
          .positive()
          .max(24 * 60)
          .default(DEFAULT_MATRIX_SETTLE_MINUTES),
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

/**
 * FIXLOOP_TRUST_PROXY as read (issue 31, decision 0046): null believes no proxy; otherwise how many
 * proxies stand in front (hops), and the peer addresses or CIDR ranges they are seen from (null: any).
 */
export interface TrustProxySetting {
  readonly hops: number;
  readonly addresses: readonly string[] | null;
}

/** `false` (default), `true` (one proxy), a hop count, or a comma-separated list of proxy addresses / CIDR ranges. */
const trustProxy = z.string().transform((raw, ctx): TrustProxySetting | null => {
  const v = raw.trim().toLowerCase();
  if (v === '' || v === 'false' || v === '0') return null;
  if (v === 'true') return { hops: 1, addresses: null };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops <= 10) return { hops, addresses: null };
    ctx.addIssue({ code: 'custom', message: 'must be at most 10 hops' });
    return z.NEVER;
  }
  const addresses = v
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  const bad = addresses.filter((a) => !isAddressOrRange(a));
  if (bad.length > 0 || addresses.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `must be false, true, a hop count or proxy addresses (IP or CIDR, comma-separated); not ${bad.join(', ') || raw}`,
    });
    return z.NEVER;
  }
  return { hops: 1, addresses };
});

function isAddressOrRange(a: string): boolean {
  const [ip, prefix, ...rest] = a.split('/');
  const family = isIP(ip ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

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
  ['FIXLOOP_SLACK_WEBHOOK_URL', 'FIXLOOP_SLACK_WEBHOOK_URL_FILE'],
  ['FIXLOOP_NOTICE_WEBHOOK_SECRET', 'FIXLOOP_NOTICE_WEBHOOK_SECRET_FILE'],
  ['FIXLOOP_METRICS_TOKEN', 'FIXLOOP_METRICS_TOKEN_FILE'],
] as const;

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
    /**
     * The GitHub App's webhook secret(s), comma-separated to rotate; unset before GitHub is connected
     * (the setup page stores one, decision 0050), when the GitHub webhook answers 503.
     */
    WEBHOOK_SECRET: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      )
      .pipe(z.array(z.string()).min(1, 'must hold at least one non-empty secret'))
      .optional(),
    /** Q1 (decision 0032): the GitLab webhooks' secret token(s), comma-separated to rotate; unset, the GitLab route answers 404. */
    GITLAB_WEBHOOK_SECRET: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      )
      .pipe(z.array(z.string()).min(1, 'must hold at least one non-empty secret'))
      .optional(),
    /** Q1 (decision 0036): GitLab's webhook signing token(s) (`whsec_…`), comma-separated to rotate; each body's signature must verify. */
    GITLAB_WEBHOOK_SIGNING_TOKEN: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      )
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
    FIXLOOP_METRICS_TOKEN_FILE: filePath.optional(),
    FIXLOOP_SLACK_WEBHOOK_URL_FILE: filePath.optional(),
    FIXLOOP_NOTICE_WEBHOOK_SECRET_FILE: filePath.optional(),
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
