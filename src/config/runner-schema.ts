// The `runner` of the config file (SPEC L1, L3, I4): a command runner (a preset or a hand-written argv,
// its workspace and isolation) or an http runner, and the operator's prompt template checked at load.
import { z } from 'zod';
import { checkPromptTemplate, TEMPLATE_PLACEHOLDERS, type TemplateProblem } from '../core/prompt-template.js';
import { outboundUrlProblem } from '../core/signed-post.js';
import { RUNNER_PRESET_NAMES, RUNNER_PRESETS } from './runner-preset-schema.js';
import { workspaceSchema } from './workspace-schema.js';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** L3: how the command runner keeps the agent from fixloop's secrets (src/runners/isolation.ts). */
export const ISOLATION_MODES = ['user', 'bwrap', 'none'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];
/** The agent's user: a name in /etc/passwd, `uid` or `uid:gid`. */
export const agentUserSpec = z
  .string()
  .trim()
  .regex(/^([a-z_][a-z0-9_.-]*\$?|\d+(:\d+)?)$/i, 'must be a user name, "uid" or "uid:gid"');

/** An operator's prompt template (I4): checked at load, so a typo never reaches a run. */
export const promptTemplateSchema = z.string().superRefine((template, ctx) => {
  for (const p of checkPromptTemplate(template)) ctx.addIssue({ code: 'custom', message: templateProblemText(p) });
});

function templateProblemText(p: TemplateProblem): string {
  return p.kind === 'unknown_placeholder'
    ? `unknown placeholder {{${p.placeholder}}}; the known ones are ${TEMPLATE_PLACEHOLDERS.map((n) => `{{${n}}}`).join(', ')} (the protocol block is always appended and cannot be placed)`
    : `placeholder {{${p.placeholder}}} may appear at most once`;
}

export const commandRunnerSchema = z
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
        message: `a command runner needs \`preset\` (one of ${RUNNER_PRESET_NAMES.join(', ')}) or \`command\` (argv; [] for no runner)`,
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

export const httpRunnerSchema = z.strictObject({
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

/** R2: the vendors the `session` runner knows (src/runners/session-vendors.ts), and `custom` for another. */
export const SESSION_VENDORS = ['devin', 'cursor', 'custom'] as const;

/** A path on the vendor's API with the session id's place in it. */
const sessionPath = z
  .string()
  .regex(/^\/[^\s?#]*$/, 'must be a path starting with / (no query, no fragment)')
  .refine((p) => p.includes('{sessionId}'), 'must contain {sessionId}, where the session id goes');
/** RFC 6901: empty (the whole answer) or /-separated keys. */
const jsonPointer = z.string().regex(/^(\/([^~]|~[01])*)*$/, 'must be a JSON pointer such as /status');
const stateList = z.array(z.string().min(1).max(100)).max(50);

/** R2: another REST vendor, described by its documented API (docs/configuration.md, "Session runner"). */
export const customSessionVendorSchema = z
  .strictObject({
    /** How people read it in logs and notices. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be lower-case letters, digits and -'),
    auth: z.enum(['bearer', 'basic']).default('bearer'),
    messagePath: sessionPath,
    /** JSON; each `{{prompt}}` and `{{sessionId}}` inside a string is replaced. */
    messageBody: z
      .json()
      .refine((b) => JSON.stringify(b).includes('{{prompt}}'), 'must contain {{prompt}}, where the frame goes'),
    statusPath: sessionPath,
    statePointer: jsonPointer,
    states: z
      .strictObject({
        /** Listed for the reader: a state in no list keeps the run running anyway. */
        running: stateList.default([]),
        completed: stateList.min(1),
        failed: stateList.default([]),
        needsPerson: stateList.default([]),
      })
      .superRefine((s, ctx) => {
        const seen = new Map<string, string>();
        for (const list of ['running', 'completed', 'failed', 'needsPerson'] as const) {
          for (const state of s[list]) {
            const first = seen.get(state);
            if (first)
              ctx.addIssue({ code: 'custom', path: [list], message: `${JSON.stringify(state)} is in ${first} too` });
            else seen.set(state, list);
          }
        }
      }),
    spend: z.strictObject({ pointer: jsonPointer, dollarsPerUnit: z.number().positive().default(1) }).optional(),
    webhook: z
      .strictObject({
        signatureHeader: z
          .string()
          .regex(/^[A-Za-z0-9-]+$/, 'must be a header name')
          .transform((h) => h.toLowerCase()),
        idPointer: jsonPointer,
      })
      .optional(),
  })
  .readonly();

export const sessionRunnerSchema = z
  .strictObject({
    kind: z.literal('session'),
    vendor: z.enum(SESSION_VENDORS),
    /** The vendor's API; a preset's documented one when unset. https, or http only to this machine. */
    baseUrl: z
      .url({ protocol: /^https?$/ })
      .superRefine((v, ctx) => {
        const problem = outboundUrlProblem(v);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    /** How often the session's state is read. */
    pollSeconds: z.number().positive().max(3600).default(30),
    /** How long a run follows its session before it ends failed (a notice follows, never silence). */
    timeoutMinutes: z
      .number()
      .positive()
      .max(7 * 24 * 60)
      .default(60),
    custom: customSessionVendorSchema.optional(),
    /**
     * Decision 0074: Devin's API v3, for a service user's key in this organization — it reports the
     * session's ACUs, counted as spend at `acuPrice` US dollars per ACU when set (told, not counted, without).
     */
    devin: z
      .strictObject({
        orgId: z.string().regex(/^org-[A-Za-z0-9_-]{1,100}$/, 'must be an organization id, e.g. "org-abc123"'),
        acuPrice: z.number().positive().max(1000).optional(),
      })
      .optional(),
    promptTemplate: promptTemplateSchema.optional(),
  })
  .superRefine((r, ctx) => {
    if (r.vendor === 'custom' && r.custom === undefined)
      ctx.addIssue({ code: 'custom', path: ['custom'], message: 'vendor custom needs `custom`, the vendor described' });
    if (r.vendor === 'custom' && r.baseUrl === undefined)
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'vendor custom needs `baseUrl`' });
    if (r.vendor !== 'devin' && r.devin !== undefined)
      ctx.addIssue({ code: 'custom', path: ['devin'], message: `is only read with vendor devin` });
    if (r.vendor !== 'custom' && r.custom !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['custom'],
        message: `is only read with vendor custom (${r.vendor} is a preset)`,
      });
  });
