// The closed lists a runner preset's options are checked against (SPEC L1): Claude Code's permission
// modes, Codex's sandbox modes and Gemini CLI's approval modes. They live in config, not in runners/presets.ts, so the schema can
// validate `presetOptions` without config importing the runners (runners import config, not back).
export const CLAUDE_PERMISSION_MODES = [
  'default',
  'acceptEdits',
  'plan',
  'dontAsk',
  'auto',
  'bypassPermissions',
] as const;

/** How a preset's agent reaches fixloop's MCP server: `http` needs nothing on the agent's PATH. */
export const MCP_TRANSPORTS = ['http', 'stdio'] as const;

export const CODEX_SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;

/** Gemini CLI's `--approval-mode` choices (0.61). */
export const GEMINI_APPROVAL_MODES = ['default', 'auto_edit', 'yolo', 'plan'] as const;
