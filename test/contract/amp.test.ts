// Contract test (SPEC L1, L4, M3): the real Amp CLI (test/contract/agents) with the real
// `amp-threads-continue` preset, as far as it goes without Amp's service. Amp runs its model on Amp's
// own server (AMP_URL, default ampcode.com), which nothing here can stand in for, so no turn is
// scripted: a loopback recorder stands where Amp's service and fixloop's /mcp would be, and shows that
// the CLI takes the preset's exact argv (the thread after `--`, execute mode, the MCP file) and that its
// MCP entry carries the run token it expanded from the environment (decision 0065).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentCli } from './support.js';
import { AMP_MCP_FILE, ampThreadsContinue } from '../../src/runners/amp-preset.js';

const THREAD = 'T-2775dc92-90ed-4f85-8b73-8f9766029e83';
const RUN_TOKEN = 'fixloop-run-token-amp-contract';

let dir: string;
let recorder: Server;
let url: string;
const seen: { method: string; path: string; auth: string | undefined; body: string }[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fixloop-amp-'));
  mkdirSync(join(dir, 'home'));
  // Every request is recorded and refused, as a service that does not know the key would.
  recorder = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', auth: req.headers.authorization, body });
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"unauthorized"}');
    });
  });
  await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
});

after(async () => {
  recorder?.closeAllConnections();
  await new Promise<void>((r) => recorder?.close(() => r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The agent's environment as the command runner builds it, Amp's service at the recorder. */
function agentEnv(): Record<string, string> {
  const home = join(dir, 'home');
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    AMP_API_KEY: 'amp-contract-key',
    AMP_URL: `${url}/`,
    FIXLOOP_API_URL: url,
    FIXLOOP_RUN_TOKEN: RUN_TOKEN,
  };
}

function amp(args: string[], stdin: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(agentCli('amp'), args, { cwd: dir, env: agentEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
    child.stdin.end(stdin);
  });
}

describe('Amp CLI with the amp-threads-continue preset (L1, L4, M3), without Amp’s service', () => {
  test("L1: the real CLI takes the preset's argv and asks Amp's service for the Task's thread", async () => {
    const preset = ampThreadsContinue({ allowAll: true });
    const runDir = join(dir, 'run-1');
    mkdirSync(runDir);
    for (const [name, content] of Object.entries(preset.runFiles ?? {})) writeFileSync(join(runDir, name), content);
    const argv = preset.command.slice(1).map((a) => a.replaceAll('{runDir}', runDir).replaceAll('{resumeRef}', THREAD));
    const from = seen.length;
    const r = await amp(argv, 'CI is red: fix it.');
    // No key the recorder knows: Amp stops there, after it has read the thread it was told to continue.
    assert.notEqual(r.code, 0, r.out);
    assert.doesNotMatch(r.out, /unknown option|error: too many arguments|Invalid thread/i, r.out);
    const tail = seen.slice(from).find((s) => s.path.includes('getThreadTail'));
    assert.ok(tail, `Amp never asked its service for the thread:\n${r.out}\n${JSON.stringify(seen.slice(from))}`);
    assert.equal(JSON.parse(tail.body).params.thread, THREAD);
    assert.ok(!argv.some((a) => a.includes(RUN_TOKEN)), 'the run token is never in argv');
  });

  test("M3: Amp's MCP entry from the preset's file reaches fixloop's /mcp with the run token from the environment", async () => {
    const runDir = join(dir, 'run-2');
    mkdirSync(runDir);
    const file = join(runDir, AMP_MCP_FILE);
    writeFileSync(file, ampThreadsContinue().runFiles![AMP_MCP_FILE]!);
    const from = seen.length;
    const r = await amp(['mcp', 'doctor', '--mcp-config', file], '');
    const mcp = seen.slice(from).filter((s) => s.path === '/mcp');
    assert.ok(mcp.length > 0, `Amp never called /mcp:\n${r.out}`);
    for (const s of mcp) assert.equal(s.auth, `Bearer ${RUN_TOKEN}`);
    assert.match(mcp[0]!.body, /"method":"initialize"/);
  });
});
