// The Amp preset (SPEC L1, L4, R2): `amp threads continue --execute --stream-json -- <thread>`, the
// prompt on stdin (execute mode reads it there; nothing of it in argv). fixloop's MCP server is given by
// `--mcp-config` naming a file fixloop writes into the run directory, merged with the user's settings;
// Amp expands `${VAR}` in it from the agent's environment (checked with the real CLI), so the run token
// is in neither argv nor the file (decision 0065). Amp's model runs on Amp's own service
// (`AMP_URL`, default ampcode.com): it cannot be pointed at a model on loopback.
import { streamJsonSpend } from './agent-spend.js';
import { checkValue } from './preset-checks.js';
import { FIXLOOP_MCP_ENV, type McpTransport, type RunnerPreset } from './presets.js';

export interface AmpContinueOptions {
  /** Amp's agent mode (`--mode`), e.g. `smart`, `rush`, `deep`; Amp's default otherwise. */
  mode?: string;
  /**
   * `--dangerously-allow-all`: no tool asks. Default false: Amp's rules apply, and its built-in ones ask
   * before `git commit` and `git push`, which execute mode cannot answer: allow them in `settingsFile`
   * (`amp.permissions`) or here.
   */
  allowAll?: boolean;
  /** An Amp settings file of your own (`--settings-file`) in place of the user's. */
  settingsFile?: string;
  /** Default `http`; `stdio` starts `fixloop mcp`, which must then be on the agent's PATH. */
  mcp?: McpTransport;
}

/** Written into the run directory by the command runner (`{runDir}/amp-mcp.json`). */
export const AMP_MCP_FILE = 'amp-mcp.json';

/** Amp's `--mcp-config` for fixloop: server name → server, as in `amp.mcpServers`. */
export function ampMcpConfig(transport: McpTransport): string {
  const server =
    transport === 'http'
      ? { url: '${FIXLOOP_API_URL}/mcp', headers: { Authorization: 'Bearer ${FIXLOOP_RUN_TOKEN}' } }
      : {
          command: 'fixloop',
          args: ['mcp'],
          env: Object.fromEntries(FIXLOOP_MCP_ENV.map((n) => [n, `\${${n}}`])),
        };
  return `${JSON.stringify({ fixloop: server }, null, 2)}\n`;
}

/**
 * `amp threads continue` in execute mode: the Task's `resumeRef` must be an Amp thread id (`T-…`) or
 * URL. The thread lives on Amp's service, so it is found from any directory; `--` ends the options
 * before it, so no thread id is read as one.
 */
export function ampThreadsContinue(o: AmpContinueOptions = {}): RunnerPreset {
  const command = [
    'amp',
    'threads',
    'continue',
    '--execute',
    '--stream-json',
    '--mcp-config',
    `{runDir}/${AMP_MCP_FILE}`,
  ];
  if (o.mode !== undefined) command.push('--mode', checkValue('mode', o.mode));
  if (o.settingsFile !== undefined) command.push('--settings-file', checkValue('settingsFile', o.settingsFile));
  if (o.allowAll === true) command.push('--dangerously-allow-all');
  command.push('--', '{resumeRef}');
  return {
    command,
    // Amp's access token and service, its settings file, and where it keeps its login and logs.
    envAllow: ['AMP_API_KEY', 'AMP_URL', 'AMP_SETTINGS_FILE', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME'],
    stdinFromPromptFile: true,
    spendOf: streamJsonSpend,
    runFiles: { [AMP_MCP_FILE]: ampMcpConfig(o.mcp ?? 'http') },
  };
}
