// Ready-made `command` runner settings (SPEC L1, L2) for resuming a CLI agent non-interactively:
// Claude Code (`claude -p --resume`) and Codex (`codex exec resume`), checked against the real CLIs by
// the contract tests in test/contract/; Gemini CLI, OpenCode and Amp have a file each (gemini-preset.ts,
// opencode-preset.ts, amp-preset.ts). The prompt always reaches the agent on stdin from the prompt
// file, never in argv; fixloop's MCP server is reached over streamable HTTP with the run token, which
// is read from the agent's environment and never written into argv or a file (decision 0023).
import { CLAUDE_PERMISSION_MODES, CODEX_SANDBOX_MODES } from '../config/preset-options.js';
import type { CommandRunnerOptions } from './command.js';
import { streamJsonSpend } from './agent-spend.js';
import { placeClaudeSession } from './claude-session.js';
import { checkCount, checkRoot, checkValue } from './preset-checks.js';

/** The part of the command runner's options a preset decides; add `workDir`, `workspace`, … */
export type RunnerPreset = Required<Pick<CommandRunnerOptions, 'command' | 'envAllow' | 'stdinFromPromptFile'>> &
  Pick<CommandRunnerOptions, 'runFiles' | 'runEnv' | 'beforeStart' | 'spendOf'>;

/** How the agent reaches fixloop's MCP server: `http` needs nothing on the agent's PATH. */
export type McpTransport = 'http' | 'stdio';

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
  /** Default `http`; `stdio` starts `fixloop mcp`, which must then be on the agent's PATH. */
  mcp?: McpTransport;
  /**
   * An MCP config file of your own instead of fixloop's (used with `--strict-mcp-config`, so no other
   * server is loaded); `null` leaves MCP to Claude's own configuration.
   */
  mcpConfig?: string | null;
}

/** Claude Code's MCP config for fixloop: it expands `${VAR}` from the agent's environment itself. */
export function claudeMcpConfig(transport: McpTransport): string {
  const server =
    transport === 'http'
      ? {
          type: 'http',
          url: '${FIXLOOP_API_URL}/mcp',
          headers: { Authorization: 'Bearer ${FIXLOOP_RUN_TOKEN}' },
        }
      : { type: 'stdio', command: 'fixloop', args: ['mcp'] };
  return `${JSON.stringify({ mcpServers: { fixloop: server } }, null, 2)}\n`;
}

/** Written into the run directory by the command runner (`{runDir}/mcp.json`). */
export const CLAUDE_MCP_FILE = 'mcp.json';

/**
 * `claude -p --resume <session>` reading the prompt from stdin, streaming JSON events to the run log.
 * The Task's `resumeRef` must be a Claude Code session id. Claude Code looks a session up under the
 * directory it ran in; before each start the session is placed under the agent's working directory
 * (claude-session.ts), so the first resume in a fresh workspace finds it.
 */
export function claudeCodeResume(o: ClaudeCodeResumeOptions = {}): RunnerPreset {
  const permissionMode = o.permissionMode ?? 'acceptEdits';
  if (!CLAUDE_PERMISSION_MODES.includes(permissionMode))
    throw new Error(`claudeCodeResume: unknown permissionMode ${JSON.stringify(permissionMode)}`);
  const tools = [...(o.allowedTools ?? DEFAULT_CLAUDE_ALLOWED_TOOLS)];
  for (const t of tools) checkValue('allowedTools', t);
  const ownConfig = o.mcpConfig !== undefined;
  const mcpConfig = ownConfig ? o.mcpConfig : `{runDir}/${CLAUDE_MCP_FILE}`;
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
  if (mcpConfig !== null && mcpConfig !== undefined) {
    checkValue('mcpConfig', mcpConfig);
    command.push('--mcp-config', mcpConfig, '--strict-mcp-config');
  }
  if (o.model !== undefined) command.push('--model', checkValue('model', o.model));
  if (o.maxTurns !== undefined) command.push('--max-turns', String(checkCount('maxTurns', o.maxTurns)));
  return {
    command,
    envAllow: [
      'ANTHROPIC_API_KEY',
      'CLAUDE_CODE_OAUTH_TOKEN',
      // A gateway or proxy in front of the model API, and where Claude keeps its sessions and login.
      'ANTHROPIC_BASE_URL',
      'CLAUDE_CONFIG_DIR',
    ],
    stdinFromPromptFile: true,
    ...(ownConfig ? {} : { runFiles: { [CLAUDE_MCP_FILE]: claudeMcpConfig(o.mcp ?? 'http') } }),
    beforeStart: placeClaudeSession,
    spendOf: streamJsonSpend,
  };
}

export type CodexSandboxMode = (typeof CODEX_SANDBOX_MODES)[number];

export interface CodexExecResumeOptions {
  model?: string;
  /**
   * Default `workspace-write`, with network access (so `git push` reaches the remote) and the
   * checkout's `.git` writable (so `git commit` works: Codex keeps `.git` read-only otherwise).
   */
  sandbox?: CodexSandboxMode;
  /** More absolute paths the `workspace-write` sandbox may write, beside the checkout and its `.git`. */
  writableRoots?: readonly string[];
  /** Default `http`; `stdio` starts `fixloop mcp` (or `mcpServer`), which must be on the agent's PATH. */
  mcp?: McpTransport;
  /**
   * A stdio MCP server of your own for fixloop's tools, given to Codex as `-c mcp_servers.<name>.…`
   * overrides (Codex does not read `.mcp.json`); `null` for none.
   */
  mcpServer?: { name?: string; command: string; args?: readonly string[] } | null;
}

/** The run-scoped variables a stdio `fixloop mcp` needs from the agent's environment (M3). */
export const FIXLOOP_MCP_ENV = ['FIXLOOP_RUN_TOKEN', 'FIXLOOP_API_URL', 'FIXLOOP_RUN_ID', 'FIXLOOP_TASK_ID'] as const;

/**
 * `codex exec … resume <session> -`: the trailing `-` makes Codex read the prompt from stdin; `--json`
 * prints JSONL events to the run log. The Task's `resumeRef` must be a Codex session id. Codex refuses
 * a working directory that is not a git checkout, so the runner needs a workspace (or a `cwd` that is
 * one): the config loader says so.
 */
export function codexExecResume(o: CodexExecResumeOptions = {}): RunnerPreset {
  const sandbox = o.sandbox ?? 'workspace-write';
  if (!CODEX_SANDBOX_MODES.includes(sandbox))
    throw new Error(`codexExecResume: unknown sandbox ${JSON.stringify(sandbox)}`);
  // exec's own options go before the `resume` subcommand, where the argument parser always takes them.
  const command = ['codex', 'exec', '--json', '--sandbox', sandbox];
  if (sandbox === 'workspace-write') {
    const roots = ['{workspace}/.git', ...(o.writableRoots ?? []).map((r) => checkRoot(r))];
    command.push(
      '-c',
      'sandbox_workspace_write.network_access=true',
      '-c',
      `sandbox_workspace_write.writable_roots=${JSON.stringify(roots)}`,
    );
  }
  if (o.model !== undefined) command.push('--model', checkValue('model', o.model));
  const stdio =
    o.mcpServer !== undefined
      ? o.mcpServer
      : o.mcp === 'stdio'
        ? { name: 'fixloop', command: 'fixloop', args: ['mcp'] }
        : undefined;
  if (stdio === undefined) {
    // Values are TOML; a JSON string is a valid TOML string. The token stays in the environment:
    // Codex sends the variable's value as the bearer token.
    command.push('-c', 'mcp_servers.fixloop.url="{apiUrl}/mcp"');
    command.push('-c', 'mcp_servers.fixloop.bearer_token_env_var="FIXLOOP_RUN_TOKEN"');
    command.push(...mcpPolicy('fixloop'));
  } else if (stdio !== null) {
    const name = stdio.name ?? 'fixloop';
    if (!/^[A-Za-z0-9_-]+$/.test(name))
      throw new Error(`codexExecResume: invalid mcpServer.name ${JSON.stringify(name)}`);
    command.push('-c', `mcp_servers.${name}.command=${JSON.stringify(stdio.command)}`);
    command.push('-c', `mcp_servers.${name}.args=${JSON.stringify(stdio.args ?? [])}`);
    // Codex starts stdio servers with a reduced environment: the names of what it must forward.
    command.push('-c', `mcp_servers.${name}.env_vars=${JSON.stringify(FIXLOOP_MCP_ENV)}`);
    command.push(...mcpPolicy(name));
  }
  command.push('resume', '{resumeRef}', '-');
  return {
    command,
    // codex exec reads CODEX_API_KEY (0.171 ignores OPENAI_API_KEY there); OPENAI_BASE_URL for a gateway.
    envAllow: ['CODEX_API_KEY', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CODEX_HOME'],
    stdinFromPromptFile: true,
  };
}

/**
 * `exec` runs with approval policy `never`, under which an MCP tool that needs approval fails every
 * call: fixloop's tools are approved up front. `required` makes Codex exit before spending a model
 * call when it cannot reach the server, instead of carrying on without the tools.
 */
function mcpPolicy(name: string): string[] {
  return ['-c', `mcp_servers.${name}.default_tools_approval_mode="approve"`, '-c', `mcp_servers.${name}.required=true`];
}
