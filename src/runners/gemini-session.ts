// Gemini CLI's first resume in a fresh workspace (SPEC L1, L2). Gemini CLI keeps a session under a
// project directory of its own for the directory it ran in (`<home>/.gemini/tmp/<project>/chats/
// session-<time>-<id prefix>.jsonl`, the project named by a `.project_root` file holding that path)
// and `--resume` looks only in the project of the directory it runs in now. The agent that opened the
// pull request ran elsewhere, so before each start the session's newest file is copied into the
// workspace's project (made when Gemini has none yet), as claude-session.ts does for Claude Code.
// Nothing is placed when the session is not on this machine: the CLI then says so in the run log.
import { createHash } from 'node:crypto';
import { chown, copyFile, mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BeforeStart } from './command.js';

/** Gemini CLI's session ids are UUIDs; only what a file name can safely carry. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{7,127}$/;
/** The file in a project directory that names the working directory it belongs to (Gemini CLI 0.61). */
export const GEMINI_PROJECT_ROOT_FILE = '.project_root';

/** Where Gemini CLI keeps projects: `$GEMINI_CLI_HOME/.gemini/tmp`, else `$HOME/.gemini/tmp`. */
export function geminiTempDir(env: Readonly<Record<string, string>>): string | null {
  const home = env.GEMINI_CLI_HOME ?? env.HOME;
  return home ? join(home, '.gemini', 'tmp') : null;
}

export async function placeGeminiSession(ctx: BeforeStart): Promise<void> {
  const id = ctx.spec.resumeRef;
  if (!id || !SESSION_ID.test(id)) return;
  const tmp = geminiTempDir(ctx.env);
  if (!tmp) return;
  let projects: string[];
  try {
    projects = await readdir(tmp);
  } catch {
    return; // no sessions on this machine (or not readable): the CLI will say so
  }
  // Gemini CLI names the project after process.cwd(), the real path of the working directory.
  const cwd = resolve(await realpath(ctx.cwd).catch(() => ctx.cwd));
  let here: string | null = null;
  let source: { path: string; name: string; mtimeMs: number } | null = null;
  for (const p of projects) {
    const dir = join(tmp, p);
    const owner = await readFile(join(dir, GEMINI_PROJECT_ROOT_FILE), 'utf8').catch(() => null);
    if (owner !== null && resolve(owner.trim()) === cwd) here = dir;
    const chats = join(dir, 'chats');
    for (const name of await readdir(chats).catch(() => [] as string[])) {
      if (!isSessionFileOf(name, id)) continue;
      const path = join(chats, name);
      const s = await stat(path).catch(() => null);
      if (!s?.isFile() || (source !== null && s.mtimeMs <= source.mtimeMs)) continue;
      if ((await sessionIdOf(path)) === id) source = { path, name, mtimeMs: s.mtimeMs };
    }
  }
  if (!source) return;
  if (here === null) {
    // A project of fixloop's naming, claimed as Gemini CLI claims one: a directory and its owner file.
    here = join(tmp, `fixloop-${createHash('sha256').update(cwd).digest('hex').slice(0, 16)}`);
    await mkdir(here, { recursive: true, mode: 0o700 });
    await writeFile(join(here, GEMINI_PROJECT_ROOT_FILE), cwd, { mode: 0o600 });
  }
  const chats = join(here, 'chats');
  const target = join(chats, source.name);
  if (target === source.path) return;
  await mkdir(chats, { recursive: true, mode: 0o700 });
  await copyFile(source.path, target);
  if (ctx.agent) {
    for (const p of [here, join(here, GEMINI_PROJECT_ROOT_FILE), chats, target])
      await chown(p, ctx.agent.uid, ctx.agent.gid).catch(() => {});
  }
}

/** `session-<time>-<first 8 of the id>.json[l]`, as Gemini CLI names a session's file. */
function isSessionFileOf(name: string, id: string): boolean {
  const short = id.slice(0, 8);
  return name.startsWith('session-') && (name.endsWith(`-${short}.jsonl`) || name.endsWith(`-${short}.json`));
}

/** The session id a session file declares: the first line of a `.jsonl`, or the whole `.json`. */
async function sessionIdOf(path: string): Promise<string | null> {
  try {
    const text = await readFile(path, 'utf8');
    const head = path.endsWith('.jsonl')
      ? text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'))
      : text;
    const v = JSON.parse(head) as { sessionId?: unknown };
    return typeof v.sessionId === 'string' ? v.sessionId : null;
  } catch {
    return null;
  }
}
