// fixloop's register-task hook as an OpenCode plugin (SPEC H1, L1): after OpenCode's `bash` tool ran
// `gh pr create`, the pull request it printed is registered as a fixloop Task resuming this session.
// Copy this file and register-task.mjs into `.opencode/plugins/` (or ~/.config/opencode/plugins/); set
// FIXLOOP_URL and FIXLOOP_API_TOKEN (or FIXLOOP_API_TOKEN_FILE) in OpenCode's environment. The work is
// register-task.mjs's, run as a child with the tool call's JSON on stdin: argv only, never a shell
// string, and it never blocks or fails the agent.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./register-task.mjs', import.meta.url));

export const FixloopRegisterTask = async ({ directory }) => ({
  'tool.execute.after': async (input, output) => {
    if (input?.tool !== 'bash') return;
    const call = {
      tool: input.tool,
      sessionID: input.sessionID,
      args: input.args ?? output?.metadata?.args ?? {},
      output: typeof output?.output === 'string' ? output.output : '',
      cwd: directory,
    };
    await new Promise((done) => {
      // `node` from PATH: inside OpenCode, process.execPath is OpenCode's own binary (Bun), not Node.
      const child = spawn('node', [SCRIPT, 'opencode'], { stdio: ['pipe', 'ignore', 'inherit'] });
      child.on('error', () => done());
      child.on('exit', () => done());
      child.stdin.end(JSON.stringify(call));
    });
  },
});
