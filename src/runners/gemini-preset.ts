// The Gemini CLI preset (SPEC L1, L4, R2): `gemini --resume=<session> --output-format json`, the prompt
// on stdin (a non-TTY stdin is headless mode; no `-p`, so the prompt is never in argv). fixloop's MCP
// server and the tools that pass without asking go into the checkout's `.gemini/settings.json` (the
// workspace's, trusted by GEMINI_CLI_TRUST_WORKSPACE; the pull request's own `.gemini/` never reaches
// the agent: the workspace removes it).
// Gemini CLI expands `${VAR}` in settings from the agent's environment, so the run token is in neither
// argv nor the file (decision 0065). System settings (GEMINI_CLI_SYSTEM_SETTINGS_PATH) are no way in:
// Gemini CLI reads them only from a root-owned file in root-owned directories.
import { chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GEMINI_APPROVAL_MODES } from '../config/preset-options.js';
import type { BeforeStart } from './command.js';
import { placeGeminiSession } from './gemini-session.js';
import { geminiSpend } from './agent-spend.js';
import { checkValue } from './preset-checks.js';
import { FIXLOOP_MCP_ENV, type McpTransport, type RunnerPreset } from './presets.js';

export type GeminiApprovalMode = (typeof GEMINI_APPROVAL_MODES)[number];

/** Shell commands the Gemini preset lets through without asking: the git the agent needs to push. */
export const DEFAULT_GEMINI_ALLOWED_TOOLS = [
  'run_shell_command(git status)',
  'run_shell_command(git diff)',
  'run_shell_command(git log)',
  'run_shell_command(git add)',
  'run_shell_command(git commit)',
  'run_shell_command(git push)',
] as const;

export interface GeminiResumeOptions {
  /** e.g. `gemini-2.5-pro`, `flash`; Gemini CLI's own default (`auto`) otherwise. */
  model?: string;
  /** Default `auto_edit`: file edits pass; other tools need `allowedTools` (headless mode cannot ask). */
  approvalMode?: GeminiApprovalMode;
  /** Default DEFAULT_GEMINI_ALLOWED_TOOLS (Gemini's `tools.allowed`); add e.g. `run_shell_command(npm test)`. */
  allowedTools?: readonly string[];
  /** Default `http`; `stdio` starts `fixloop mcp`, which must then be on the agent's PATH. */
  mcp?: McpTransport;
}

/** Where Gemini CLI reads a project's settings, under the agent's working directory. */
export const GEMINI_WORKSPACE_SETTINGS = join('.gemini', 'settings.json');

/**
 * Gemini CLI's settings for a run: fixloop's MCP server (trusted, so its tools never wait for a
 * confirmation headless mode cannot give) and the tools allowed without asking. Workspace settings
 * override the user's; `mcpServers` merge with the user's own.
 */
export function geminiSettings(transport: McpTransport, allowedTools: readonly string[]): Record<string, unknown> {
  const server =
    transport === 'http'
      ? {
          httpUrl: '${FIXLOOP_API_URL}/mcp',
          headers: { Authorization: 'Bearer ${FIXLOOP_RUN_TOKEN}' },
          trust: true,
        }
      : // A stdio server gets the listed variables of the agent's environment, expanded by the CLI.
        {
          command: 'fixloop',
          args: ['mcp'],
          env: Object.fromEntries(FIXLOOP_MCP_ENV.map((n) => [n, `\${${n}}`])),
          trust: true,
        };
  return { mcpServers: { fixloop: server }, tools: { allowed: [...allowedTools] } };
}

/**
 * Writes fixloop's settings into the checkout's `.gemini/settings.json`, over what the workspace's
 * own files put there (`workspace.files`): fixloop's server is added, the allowed tools joined.
 */
export async function writeGeminiSettings(ctx: BeforeStart, settings: Record<string, unknown>): Promise<void> {
  const dir = join(ctx.cwd, '.gemini');
  const file = join(ctx.cwd, GEMINI_WORKSPACE_SETTINGS);
  const own = await readFile(file, 'utf8')
    .then((t) => JSON.parse(t) as Record<string, unknown>)
    .catch(() => ({}) as Record<string, unknown>);
  const ours = settings as { mcpServers: Record<string, unknown>; tools: { allowed: string[] } };
  const ownServers = (own.mcpServers ?? {}) as Record<string, unknown>;
  const ownTools = (own.tools ?? {}) as { allowed?: unknown };
  const ownAllowed = Array.isArray(ownTools.allowed) ? ownTools.allowed.filter((t) => typeof t === 'string') : [];
  const merged = {
    ...own,
    mcpServers: { ...ownServers, ...ours.mcpServers },
    tools: { ...ownTools, allowed: [...new Set([...ownAllowed, ...ours.tools.allowed])] },
  };
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await writeFile(file, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o644 });
  if (ctx.agent) {
    await chown(dir, ctx.agent.uid, ctx.agent.gid);
    await chown(file, ctx.agent.uid, ctx.agent.gid);
  }
}

/**
 * `gemini --resume=<session>` in headless mode. The Task's `resumeRef` must be a Gemini CLI session
 * id; before each start the session is placed under the project directory Gemini keeps for the
 * agent's working directory (gemini-session.ts), where `--resume` looks. The checkout is trusted
 * (GEMINI_CLI_TRUST_WORKSPACE; `--skip-trust` comes too late for the workspace's settings): it is
 * fixloop's own, its agent-control files replaced by the workspace's, and headless mode refuses an
 * untrusted folder outright. Needs a workspace: the config loader says so.
 */
export function geminiResume(o: GeminiResumeOptions = {}): RunnerPreset {
  const approvalMode = o.approvalMode ?? 'auto_edit';
  if (!GEMINI_APPROVAL_MODES.includes(approvalMode))
    throw new Error(`geminiResume: unknown approvalMode ${JSON.stringify(approvalMode)}`);
  const tools = [...(o.allowedTools ?? DEFAULT_GEMINI_ALLOWED_TOOLS)];
  for (const t of tools) checkValue('allowedTools', t);
  // `--opt=value`: a value is never read as an option of its own, whatever it starts with.
  const command = [
    'gemini',
    '--resume={resumeRef}',
    '--output-format=json',
    `--approval-mode=${approvalMode}`,
    '--allowed-mcp-server-names=fixloop',
  ];
  if (o.model !== undefined) command.push(`--model=${checkValue('model', o.model)}`);
  const settings = geminiSettings(o.mcp ?? 'http', tools);
  return {
    command,
    envAllow: [
      'GEMINI_API_KEY',
      'GOOGLE_API_KEY',
      // Vertex AI, a gateway in front of the Gemini API, and where Gemini CLI keeps sessions and login.
      'GOOGLE_GENAI_USE_VERTEXAI',
      'GOOGLE_CLOUD_PROJECT',
      'GOOGLE_CLOUD_LOCATION',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'GOOGLE_GEMINI_BASE_URL',
      'GEMINI_CLI_HOME',
    ],
    stdinFromPromptFile: true,
    spendOf: geminiSpend,
    runEnv: { GEMINI_CLI_TRUST_WORKSPACE: 'true' },
    beforeStart: async (ctx) => {
      await writeGeminiSettings(ctx, settings);
      await placeGeminiSession(ctx);
    },
  };
}
