// The zod schema of fixloop's configuration (SPEC M5, C1, A5, L1): the config file's keys and the
// environment variables, validated at the boundary and naming only the fields fixloop reads.
// Cross-field rules (one data repo per Work, repositories under the Work's account — decision
// 0006 (c) — a repository in one Work only) live here too, so every config error reads the same.
// Each part of the file has its own schema beside this one (runner-schema.ts, notices-schema.ts); the
// environment's is env-schema.ts.
import { z } from 'zod';
import { DEFAULT_RUN_TIMEOUT_MINUTES } from '../core/run-window.js';
import { MAX_ATTEMPTS_LIMIT } from '../core/budget.js';
import { MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import { AUTHOR_ASSOCIATIONS, MINIMUM_PERMISSIONS } from '../core/standing.js';
import { DEFAULT_MATRIX_SETTLE_MINUTES } from '../core/unchanged-failure.js';
import { DEFAULT_NO_CI_MINUTES } from '../core/no-ci.js';
import { commandRunnerSchema, httpRunnerSchema, sessionRunnerSchema } from './runner-schema.js';
import { noticesSchema } from './notices-schema.js';
import { mentionRunnerSchema } from './mention-runner-schema.js';
import { actionsRunnerSchema } from './actions-runner-schema.js';
import { checkRulesSchema } from './check-rules-schema.js';

const REPOSITORY_ROLES = ['data', 'website', 'other'] as const;

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

/**
 * A Work, whose `provider` is one of `providers`: the built-in hosts, and any host registered beyond
 * them (decision 0060), which the loader is told of (config.ts `hosts`).
 */
const workSchemaFor = (providers: readonly string[]) =>
  z
    .strictObject({
      name: z.string().trim().min(1),
      account: z.string().trim().min(1),
      /** Where the repositories live (issue 19): GitLab Works take GitLab's webhooks only (decision 0032). */
      provider: z
        .string()
        .refine((p) => providers.includes(p), `must be one of ${providers.join(', ')}: the code hosts fixloop knows`)
        .default('github'),
      repositories: z.array(repositorySchema).min(1).max(3),
      /** F1/F2: whose reviews and comments count, by `author_association`; absent → OWNER, MEMBER, COLLABORATOR. */
      trustedAssociations: z.array(z.enum(AUTHOR_ASSOCIATIONS)).optional(),
      /** F1/F2 on GitHub: the least repository permission a person needs to steer; absent → write (decision 0042). */
      minimumPermission: z.enum(MINIMUM_PERMISSIONS).optional(),
      /** Issue 36: rules per check, by a glob over its name; the first that matches applies (core/check-rules.ts). */
      checks: checkRulesSchema.optional(),
      /** Issue 36: update a branch only behind its base through the host (no model run); absent → true. */
      updateBranch: z.boolean().optional(),
      /** Issue 36: the most the agent's changes since the loop began may touch; absent → 1,000 lines, 50 files (decision 0070). */
      diffBound: z.strictObject({ lines: z.int().min(1).optional(), files: z.int().min(1).optional() }).optional(),
      /** Issue 36 item 4: a red base that holds pull requests files one issue on the repository too. */
      baseIssue: z.boolean().optional(),
      /** Issue 36: put a pull request back in the merge queue once the fix of its queue failure is green. */
      requeueAfterFix: z.boolean().optional(),
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

/** V4: how long a shutdown lets running agents finish before it stops them (decision 0043). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 60_000;

/** The code hosts built into fixloop, by the id a Work's `provider` names (issue 19, decision 0060). */
export const PROVIDERS = ['github', 'gitlab'] as const;

/** The config file (YAML or JSON). Unknown keys are errors, so a typo never silently does nothing. */
export const configFileSchema = configFileSchemaFor(PROVIDERS);
export type ConfigFile = z.output<typeof configFileSchema>;

/** The config file whose Works may name any of `providers` (the built-in hosts and those registered beyond them). */
export function configFileSchemaFor(providers: readonly string[]) {
  return z
    .strictObject({
      works: z.array(workSchemaFor(providers)).default([]),
      runner: z
        .discriminatedUnion('kind', [
          commandRunnerSchema,
          httpRunnerSchema,
          mentionRunnerSchema,
          sessionRunnerSchema,
          actionsRunnerSchema,
        ])
        .optional(),
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
      /**
       * Issue 35: every automatic run's window, whatever its runner: one still unfinished this long after
       * it was dispatched is ended and the Task's one notice filed (run_timeout), never left running silently.
       */
      runTimeoutMinutes: z
        .int()
        .min(1)
        .max(24 * 60)
        .default(DEFAULT_RUN_TIMEOUT_MINUTES),
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
}
