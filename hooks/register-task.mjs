#!/usr/bin/env node
// Registers the pull request an agent just opened as a fixloop Task, with the agent's own session as
// its resume reference, so fixloop can resume that session when CI goes red (SPEC H1, L1). Runs
// beside the agent that opens pull requests, not under fixloop; needs Node 20 and nothing else.
//
//   Claude Code, a PostToolUse hook on Bash:   node register-task.mjs claude-code   (hook JSON on stdin)
//   Gemini CLI, an AfterTool hook on its shell: node register-task.mjs gemini        (hook JSON on stdin)
//   Codex, its `notify` program:               node register-task.mjs codex '<notification JSON>'
//   OpenCode, through hooks/opencode-plugin.js: node register-task.mjs opencode      (tool call JSON on stdin)
//
// Environment: FIXLOOP_URL (e.g. https://fixloop.example.com) and FIXLOOP_API_TOKEN, or
// FIXLOOP_API_TOKEN_FILE. It never blocks the agent: every problem is one line on stderr and exit 0
// (Claude Code shows a hook's stderr in its transcript; Gemini CLI logs it; Codex ignores what notify
// prints).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const PR_URL = /https?:\/\/[^\s/]+\/([A-Za-z0-9._-]+)\/([A-Za-z0-9._-]+)\/pull\/(\d+)/;

function say(message) {
  process.stderr.write(`fixloop register-task: ${message}\n`);
}

/** Text of a program's answer, or null when it cannot run (no gh, not a checkout). */
function run(file, args, cwd) {
  try {
    return execFileSync(file, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 20_000 });
  } catch {
    return null;
  }
}

function token() {
  if (process.env.FIXLOOP_API_TOKEN) return process.env.FIXLOOP_API_TOKEN.trim();
  if (process.env.FIXLOOP_API_TOKEN_FILE) return readFileSync(process.env.FIXLOOP_API_TOKEN_FILE, 'utf8').trim();
  return null;
}

/** Claude Code: after a Bash call that ran `gh pr create`, the URL it printed names the pull request. */
function fromClaudeCode(input) {
  if (input.tool_name !== 'Bash') return null;
  const command = String(input.tool_input?.command ?? '');
  if (!/\bgh\s+pr\s+create\b/.test(command)) return null;
  const out = input.tool_response;
  const text = typeof out === 'string' ? out : `${out?.stdout ?? ''}\n${out?.output ?? ''}`;
  const m = PR_URL.exec(text);
  if (!m) return null;
  return { repository: `${m[1]}/${m[2]}`, pullRequest: Number(m[3]), session: input.session_id, cwd: input.cwd };
}

/** Text of a Gemini CLI tool response: `llmContent` (text or parts) and `returnDisplay`. */
function geminiText(response) {
  const parts = (v) => (typeof v === 'string' ? v : Array.isArray(v) ? v.map((p) => p?.text ?? '').join('\n') : '');
  return `${parts(response?.llmContent)}\n${parts(response?.returnDisplay)}`;
}

/** Gemini CLI: after a `run_shell_command` that ran `gh pr create`, the URL it printed names the pull request. */
function fromGemini(input) {
  if (input.tool_name !== 'run_shell_command') return null;
  const command = String(input.tool_input?.command ?? '');
  if (!/\bgh\s+pr\s+create\b/.test(command)) return null;
  const m = PR_URL.exec(geminiText(input.tool_response));
  if (!m) return null;
  return { repository: `${m[1]}/${m[2]}`, pullRequest: Number(m[3]), session: input.session_id, cwd: input.cwd };
}

/**
 * OpenCode (hooks/opencode-plugin.js, its `tool.execute.after` hook): after a `bash` tool call that ran
 * `gh pr create`, the URL it printed names the pull request; the plugin passes the session and the directory.
 */
function fromOpenCode(input) {
  if (input.tool !== 'bash') return null;
  const command = String(input.args?.command ?? '');
  if (!/\bgh\s+pr\s+create\b/.test(command)) return null;
  const m = PR_URL.exec(String(input.output ?? ''));
  if (!m) return null;
  return { repository: `${m[1]}/${m[2]}`, pullRequest: Number(m[3]), session: input.sessionID, cwd: input.cwd };
}

/** Codex: after each turn, the pull request of the checkout's branch, as `gh` knows it, if there is one. */
function fromCodex(input) {
  if (input.type !== 'agent-turn-complete') return null;
  const cwd = input.cwd;
  const view = run('gh', ['pr', 'view', '--json', 'url,headRefName'], cwd);
  if (!view) return null;
  const pr = JSON.parse(view);
  const m = PR_URL.exec(String(pr.url ?? ''));
  if (!m) return null;
  return {
    repository: `${m[1]}/${m[2]}`,
    pullRequest: Number(m[3]),
    branch: pr.headRefName,
    session: input['thread-id'],
    cwd,
  };
}

async function main() {
  const [agent, arg] = process.argv.slice(2);
  let input;
  try {
    if (agent === 'claude-code' || agent === 'gemini' || agent === 'opencode')
      input = JSON.parse(readFileSync(0, 'utf8'));
    else if (agent === 'codex') input = JSON.parse(arg ?? '');
    else return say('usage: register-task.mjs claude-code | gemini | opencode | codex <notification JSON>');
  } catch (err) {
    return say(`unreadable input: ${err.message}`);
  }
  const read = { 'claude-code': fromClaudeCode, gemini: fromGemini, opencode: fromOpenCode, codex: fromCodex };
  const found = read[agent](input);
  if (!found) return; // not the moment a pull request was opened
  if (typeof found.session !== 'string' || found.session === '') return say('no session id in the input');
  const branch = found.branch ?? run('git', ['symbolic-ref', '--short', 'HEAD'], found.cwd)?.trim();
  if (!branch || branch === 'HEAD') return say(`cannot tell the branch of ${found.cwd}`);
  const base = process.env.FIXLOOP_URL?.replace(/\/+$/, '');
  const secret = token();
  if (!base || !secret) return say('set FIXLOOP_URL and FIXLOOP_API_TOKEN (or FIXLOOP_API_TOKEN_FILE)');
  const res = await fetch(`${base}/api/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      repository: found.repository,
      pullRequest: found.pullRequest,
      branch,
      resumeRef: found.session,
    }),
    signal: AbortSignal.timeout(20_000),
  });
  const body = await res.json().catch(() => ({}));
  if (res.status === 201) return say(`${found.repository}#${found.pullRequest} is Task ${body.id}`);
  if (res.status === 409) return; // registered before (Codex notifies after every turn)
  say(`fixloop answered ${res.status}: ${body.message ?? body.error ?? 'no message'}`);
}

main().catch((err) => say(err.message));
