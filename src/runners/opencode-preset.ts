// The OpenCode preset (SPEC L1, L4, R2): `opencode run --session=<id> --format=json`, the prompt on
// stdin (`run` reads a non-TTY stdin as the message; nothing of it in argv). fixloop's MCP server is in
// a config file fixloop writes into the run directory, named by OPENCODE_CONFIG (merged over the user's
// global config); OpenCode substitutes `{env:VAR}` from the agent's environment, so the run token is
// in neither argv nor the file (decision 0065).
import { opencodeSpend } from './agent-spend.js';
import { checkValue } from './preset-checks.js';
import { FIXLOOP_MCP_ENV, type McpTransport, type RunnerPreset } from './presets.js';

export interface OpencodeRunOptions {
  /** `provider/model`, e.g. `anthropic/claude-sonnet-4-5`; OpenCode's configured default otherwise. */
  model?: string;
  /** An agent of the user's OpenCode config (`--agent`); OpenCode's default (`build`) otherwise. */
  agent?: string;
  /** `--auto`: approve every permission not explicitly denied. Default false: OpenCode's own rules. */
  auto?: boolean;
  /** Default `http`; `stdio` starts `fixloop mcp`, which must then be on the agent's PATH. */
  mcp?: McpTransport;
}

/** Written into the run directory by the command runner (`{runDir}/opencode.json`). */
export const OPENCODE_CONFIG_FILE = 'opencode.json';

/** OpenCode's config for a run: fixloop's MCP server, nothing else (the user's global config still loads). */
export function opencodeConfig(transport: McpTransport): string {
  const server =
    transport === 'http'
      ? {
          type: 'remote',
          url: '{env:FIXLOOP_API_URL}/mcp',
          headers: { Authorization: 'Bearer {env:FIXLOOP_RUN_TOKEN}' },
          enabled: true,
        }
      : {
          type: 'local',
          command: ['fixloop', 'mcp'],
          environment: Object.fromEntries(FIXLOOP_MCP_ENV.map((n) => [n, `{env:${n}}`])),
          enabled: true,
        };
  return `${JSON.stringify({ $schema: 'https://opencode.ai/config.json', mcp: { fixloop: server } }, null, 2)}\n`;
}

/**
 * `opencode run --session=<id>`: the Task's `resumeRef` must be an OpenCode session id (`ses_…`).
 * OpenCode keeps sessions in its data directory (`$XDG_DATA_HOME/opencode`, else
 * `~/.local/share/opencode`), so the agent's user must be the one that opened the session.
 */
export function opencodeRun(o: OpencodeRunOptions = {}): RunnerPreset {
  // `--opt=value`: a value is never read as an option of its own, whatever it starts with.
  const command = ['opencode', 'run', '--session={resumeRef}', '--format=json'];
  if (o.model !== undefined) command.push(`--model=${checkValue('model', o.model)}`);
  if (o.agent !== undefined) command.push(`--agent=${checkValue('agent', o.agent)}`);
  if (o.auto === true) command.push('--auto');
  return {
    command,
    envAllow: [
      // The providers' usual keys; add others (and a provider of your own) through `envAllow`.
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'OPENROUTER_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      // Where OpenCode keeps its config, login and sessions.
      'XDG_CONFIG_HOME',
      'XDG_DATA_HOME',
      'XDG_STATE_HOME',
      'XDG_CACHE_HOME',
    ],
    stdinFromPromptFile: true,
    spendOf: opencodeSpend,
    runFiles: { [OPENCODE_CONFIG_FILE]: opencodeConfig(o.mcp ?? 'http') },
    runEnv: { OPENCODE_CONFIG: `{runDir}/${OPENCODE_CONFIG_FILE}` },
  };
}
