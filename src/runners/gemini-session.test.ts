// L1/L2: Gemini CLI's session found on the first resume in a fresh checkout. The layout is Gemini CLI
// 0.61's (`<home>/.gemini/tmp/<project>/{.project_root,chats/session-<time>-<id8>.jsonl}`), as the
// contract test (test/contract/gemini-cli.test.ts) confirms with the real CLI.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunSpec } from '../app/ports.js';
import { GEMINI_PROJECT_ROOT_FILE, placeGeminiSession } from './gemini-session.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const ID = 'adf737ec-2ee2-4c73-acc7-dcab8e76b735';
const spec = (resumeRef: string | null) => ({ resumeRef }) as unknown as RunSpec;

async function world(): Promise<{ home: string; tmp: string; cwd: string }> {
  const d = await mkdtemp(join(tmpdir(), 'fixloop-gemini-session-'));
  dirs.push(d);
  const home = join(d, 'home');
  const cwd = join(d, 'task-1', 'repo');
  await mkdir(cwd, { recursive: true });
  return { home, tmp: join(home, '.gemini', 'tmp'), cwd };
}

async function session(tmp: string, project: string, name: string, id: string, text: string): Promise<string> {
  const chats = join(tmp, project, 'chats');
  await mkdir(chats, { recursive: true });
  await writeFile(join(tmp, project, GEMINI_PROJECT_ROOT_FILE), `/elsewhere/${project}`);
  const file = join(chats, name);
  await writeFile(file, `${JSON.stringify({ sessionId: id, kind: 'main' })}\n${text}\n`);
  return file;
}

test("L1: the session's newest file is copied into a project claimed for the checkout, named by its .project_root", async () => {
  const w = await world();
  const old = await session(w.tmp, 'opener', `session-2026-12-01T10-00-${ID.slice(0, 8)}.jsonl`, ID, 'old');
  await utimes(old, new Date('2026-12-01'), new Date('2026-12-01'));
  await session(w.tmp, 'opener-2', `session-2026-12-02T10-00-${ID.slice(0, 8)}.jsonl`, ID, 'newest');
  // Another session whose id shares the first eight characters is not taken for it.
  await session(w.tmp, 'other', `session-2026-12-03T10-00-${ID.slice(0, 8)}.jsonl`, `${ID.slice(0, 8)}-0000`, 'x');
  await placeGeminiSession({ spec: spec(ID), cwd: w.cwd, env: { HOME: w.home }, agent: null });
  const projects = (await readdir(w.tmp)).filter((p) => p.startsWith('fixloop-'));
  assert.equal(projects.length, 1);
  const here = join(w.tmp, projects[0]!);
  assert.equal(await readFile(join(here, GEMINI_PROJECT_ROOT_FILE), 'utf8'), w.cwd);
  const copied = await readFile(join(here, 'chats', `session-2026-12-02T10-00-${ID.slice(0, 8)}.jsonl`), 'utf8');
  assert.match(copied, /newest/);
});

test('L1: a project Gemini CLI already keeps for the checkout is used; GEMINI_CLI_HOME wins over HOME', async () => {
  const w = await world();
  const cliHome = join(w.home, '..', 'gemini-home');
  const tmp = join(cliHome, '.gemini', 'tmp');
  await session(tmp, 'opener', `session-2026-12-01T10-00-${ID.slice(0, 8)}.jsonl`, ID, 'x');
  await mkdir(join(tmp, 'repo'), { recursive: true });
  await writeFile(join(tmp, 'repo', GEMINI_PROJECT_ROOT_FILE), `${w.cwd}\n`);
  await placeGeminiSession({
    spec: spec(ID),
    cwd: w.cwd,
    env: { HOME: w.home, GEMINI_CLI_HOME: cliHome },
    agent: null,
  });
  assert.deepEqual(await readdir(join(tmp, 'repo', 'chats')), [`session-2026-12-01T10-00-${ID.slice(0, 8)}.jsonl`]);
  assert.ok(!(await readdir(tmp)).some((p) => p.startsWith('fixloop-')));
});

test('L1: nothing is placed for a session that is not on this machine, nor for an id that cannot name a file', async () => {
  const w = await world();
  await session(w.tmp, 'opener', 'session-2026-12-01T10-00-aaaaaaaa.jsonl', 'aaaaaaaa-1', 'x');
  for (const ref of [ID, '../../etc', null])
    await placeGeminiSession({ spec: spec(ref), cwd: w.cwd, env: { HOME: w.home }, agent: null });
  assert.deepEqual(await readdir(w.tmp), ['opener']);
});
