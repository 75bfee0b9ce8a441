// Ready-made `command` runner settings (SPEC L1, L2) for resuming a CLI agent non-interactively:
// Claude Code (`claude -p --resume`) and Codex (`codex exec resume`). The prompt always reaches the
// agent on stdin from the prompt file, never in argv. Flags were checked against the CLIs' public
// documentation as far as possible; the ones marked UNVERIFIED below are best knowledge, not tested.
import { CLAUDE_PERMISSION_MODES, CODEX_SANDBOX_MODES } from '../config/preset-options.js';
import type { CommandRunnerOptions } from './command.js';

/** The part of the command runner's options a preset decides; add `workDir`, `workspace`, … */
export type RunnerPreset = Required<Pick<CommandRunnerOptions, 'command' | 'envAllow' | 'stdinFromPromptFile'>>;

/** Tools the Claude preset allows by default: fixloop's MCP tools and the git the agent needs to push. */
export const DEFAULT_CLAUDE_ALLOWED_TOOLS = [
  'mcp__fixloop',
  'Bash(git status:*)',
  'Bash(git diff:*)',
  'Bash(git log:*)',
  'Bash(git add:*)',
  'Bash(git commit:*)',
  'Bash(git push:*)',
] as const;

export type ClaudePermissionMode = (typeof CLAUDE_PERMISSION_MODES)[number];

export interface ClaudeCodeResumeOptions {
  /** e.g. `sonnet`, `opus` or a full model name. */
  model?: string;
  /** A cap on agentic turns in non-interactive mode. */
  maxTurns?: number;
  /** Default `acceptEdits`: file edits pass; other tools need `allowedTools`. */
  permissionMode?: ClaudePermissionMode;
  /** Default DEFAULT_CLAUDE_ALLOWED_TOOLS; add the project's test command, e.g. `Bash(npm test:*)`. */
  allowedTools?: readonly string[];
  /**
   * The MCP config file; default `{workspace}/.mcp.json` (the one fixloop's workspace writes), used
   * with `--strict-mcp-config` so no other MCP server is loaded. `null` leaves MCP to Claude's own config.
   */
  mcpConfig?: string | null;
}

/**
 * `claude -p --resume <session>` reading the prompt from stdin, streaming JSON events to the run log.
 * The Task's `resumeRef` must be a Claude Code session id. Claude Code files sessions under the
 * directory they ran in, so use the workspace layout `per-task` (a stable path) for resumes to find them.
 */
export function claudeCodeResume(o: ClaudeCodeResumeOptions = {}): RunnerPreset {
  const permissionMode = o.permissionMode ?? 'acceptEdits';
  if (!CLAUDE_PERMISSION_MODES.includes(permissionMode))
    throw new Error(`claudeCodeResume: unknown permissionMode ${JSON.stringify(permissionMode)}`);
  const tools = [...(o.allowedTools ?? DEFAULT_CLAUDE_ALLOWED_TOOLS)];
  for (const t of tools) checkValue('allowedTools', t);
  const mcpConfig = o.mcpConfig === undefined ? '{workspace}/.mcp.json' : o.mcpConfig;
  const command = [
    'claude',
    '-p', // --print: non-interactive; with no prompt argument the prompt is read from stdin
    '--resume',
    '{resumeRef}',
    '--output-format',
    'stream-json',
    '--verbose', // stream-json in print mode requires --verbose
    '--permission-mode',
    permissionMode,
  ];
  // --allowedTools and --mcp-config take several values: each is followed by another option here, and
  // there is no positional argument, so nothing after them can be read as one of their values.
  if (tools.length > 0) command.push('--allowedTools', ...tools);
  if (mcpConfig !== null) {
    checkValue('mcpConfig', mcpConfig);
    command.push('--mcp-config', mcpConfig, '--strict-mcp-config');
  }
  if (o.model !== undefined) command.push('--model', checkValue('model', o.model));
  // UNVERIFIED: --max-turns is in the CLI reference for print mode, but has been hidden from --help in
  // some versions.
  if (o.maxTurns !== undefined) command.push('--max-turns', String(checkCount('maxTurns', o.maxTurns)));
  return { command, envAllow: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'], stdinFromPromptFile: true };
}

export type CodexSandboxMode = (typeof CODEX_SANDBOX_MODES)[number];

export interface CodexExecResumeOptions {
  model?: string;
  /** Default `workspace-write` (with network access, so `git push` can reach the remote). */
  sandbox?: CodexSandboxMode;
  /**
   * fixloop's MCP server, given to Codex as `-c mcp_servers.<name>.…` overrides (Codex does not read
   * `.mcp.json`). Default `{ name: 'fixloop', command: 'fixloop', args: ['mcp'] }`; `null` for none.
   */
  mcpServer?: { name?: string; command: string; args?: readonly string[] } | null;
}

/** The run-scoped variables fixloop's MCP server needs from the agent's environment (M3). */
const FIXLOOP_MCP_ENV = ['FIXLOOP_RUN_TOKEN', 'FIXLOOP_API_URL', 'FIXLOOP_RUN_ID', 'FIXLOOP_TASK_ID'] as const;

/**
 * `codex exec … resume <session> -`: the trailing `-` makes Codex read the prompt from stdin; `--json`
 * prints JSONL events to the run log. The Task's `resumeRef` must be a Codex session id.
 */
export function codexExecResume(o: CodexExecResumeOptions = {}): RunnerPreset {
  const sandbox = o.sandbox ?? 'workspace-write';
  if (!CODEX_SANDBOX_MODES.includes(sandbox))
    throw new Error(`codexExecResume: unknown sandbox ${JSON.stringify(sandbox)}`);
  // exec's own options go before the `resume` subcommand, where the argument parser always takes them.
  const command = ['codex', 'exec', '--json', '--sandbox', sandbox];
  // UNVERIFIED: the config key for network access inside the workspace-write sandbox.
  if (sandbox === 'workspace-write') command.push('-c', 'sandbox_workspace_write.network_access=true');
  if (o.model !== undefined) command.push('--model', checkValue('model', o.model));
  const mcp = o.mcpServer === undefined ? { name: 'fixloop', command: 'fixloop', args: ['mcp'] } : o.mcpServer;
  if (mcp !== null) {
    const name = mcp.name ?? 'fixloop';
    if (!/^[A-Za-z0-9_-]+$/.test(name))
      throw new Error(`codexExecResume: invalid mcpServer.name ${JSON.stringify(name)}`);
    // Values are TOML; a JSON string or array of strings is valid TOML.
    command.push('-c', `mcp_servers.${name}.command=${JSON.stringify(mcp.command)}`);
    command.push('-c', `mcp_servers.${name}.args=${JSON.stringify(mcp.args ?? [])}`);
    // UNVERIFIED: `env_vars` forwards the named variables to the server (Codex starts MCP servers with
    // a reduced environment). Names only: the run token itself never goes into argv.
    command.push('-c', `mcp_servers.${name}.env_vars=${JSON.stringify(FIXLOOP_MCP_ENV)}`);
  }
  command.push('resume', '{resumeRef}', '-');
  return { command, envAllow: ['OPENAI_API_KEY', 'CODEX_HOME'], stdinFromPromptFile: true };
}

/** A value that will follow an option: never empty, never something the CLI could read as an option. */
function checkValue(name: string, value: string): string {
  if (value === '' || value.startsWith('-') || /[\0\n\r]/.test(value))
    throw new Error(`preset: invalid ${name} ${JSON.stringify(value)}`);
  return value;
}

function checkCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`preset: ${name} must be a positive integer`);
  return value;
}
