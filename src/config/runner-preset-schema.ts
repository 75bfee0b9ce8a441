// The ready-made command runners (SPEC L1, R2) and the schema of each one's `presetOptions`: what an
// operator may tune of claude-code-resume, codex-exec-resume (src/runners/presets.ts builds them),
// gemini-resume, opencode-run and amp-threads-continue (src/runners/<cli>-preset.ts).
import { z } from 'zod';
import {
  CLAUDE_PERMISSION_MODES,
  CODEX_SANDBOX_MODES,
  GEMINI_APPROVAL_MODES,
  MCP_TRANSPORTS,
} from './preset-options.js';

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

/** `presetOptions` of `preset: gemini-resume` (see geminiResume in src/runners/gemini-preset.ts). */
const geminiResumeOptionsSchema = z.strictObject({
  model: optionValue.optional(),
  approvalMode: z.enum(GEMINI_APPROVAL_MODES).optional(),
  /** Replaces the default list (DEFAULT_GEMINI_ALLOWED_TOOLS), Gemini's `tools.allowed`. */
  allowedTools: z.array(optionValue).optional(),
  /** Default `http` (fixloop's /mcp with the run token); `stdio` starts `fixloop mcp` from the agent's PATH. */
  mcp: z.enum(MCP_TRANSPORTS).optional(),
});

/** `presetOptions` of `preset: opencode-run` (see opencodeRun in src/runners/opencode-preset.ts). */
const opencodeRunOptionsSchema = z.strictObject({
  /** `provider/model`. */
  model: optionValue.optional(),
  agent: optionValue.optional(),
  /** `--auto`: approve every permission OpenCode's rules do not deny. */
  auto: z.boolean().optional(),
  mcp: z.enum(MCP_TRANSPORTS).optional(),
});

/** `presetOptions` of `preset: amp-threads-continue` (see ampThreadsContinue in src/runners/amp-preset.ts). */
const ampThreadsContinueOptionsSchema = z.strictObject({
  mode: optionValue.optional(),
  /** `--dangerously-allow-all`. */
  allowAll: z.boolean().optional(),
  /** An Amp settings file of your own (`--settings-file`). */
  settingsFile: optionValue.optional(),
  mcp: z.enum(MCP_TRANSPORTS).optional(),
});

/** The ready-made command runners (SPEC L1, R2) and the schema of each one's `presetOptions`. */
export const RUNNER_PRESETS = {
  'claude-code-resume': claudeCodeResumeOptionsSchema,
  'codex-exec-resume': codexExecResumeOptionsSchema,
  'gemini-resume': geminiResumeOptionsSchema,
  'opencode-run': opencodeRunOptionsSchema,
  'amp-threads-continue': ampThreadsContinueOptionsSchema,
} as const;
export type RunnerPresetName = keyof typeof RUNNER_PRESETS;
export const RUNNER_PRESET_NAMES = Object.keys(RUNNER_PRESETS) as [RunnerPresetName, ...RunnerPresetName[]];
