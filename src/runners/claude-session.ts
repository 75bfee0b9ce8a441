// Claude Code's first resume in a fresh workspace (SPEC L1, L2). Claude Code files a session under
// its config directory by the directory it ran in (`projects/<that path, encoded>/<session id>.jsonl`)
// and `--resume` looks only under the directory it runs in now. The agent that opened the pull request
// ran somewhere else, so before each start the session's transcript is copied under the workspace's
// entry, where `claude --resume` finds it (decision 0023). Nothing is placed when the session is not
// on this machine: the CLI then says "No conversation found" in the run log.
import { chown, copyFile, mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BeforeStart } from './command.js';

/**
 * Claude Code's directory name for a working directory (its real path): every UTF-16 unit but
 * [A-Za-z0-9] becomes '-'; past 200 characters, the first 200 and a base-36 hash of the path
 * (read from the 2.x CLI, checked by the contract test).
 */
export function claudeProjectDir(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= 200) return name;
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${name.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

/** A session id names a file: only the characters Claude Code's ids (UUIDs) are made of. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export async function placeClaudeSession(ctx: BeforeStart): Promise<void> {
  const id = ctx.spec.resumeRef;
  if (!id || !SESSION_ID.test(id)) return;
  const configDir = ctx.env.CLAUDE_CONFIG_DIR ?? (ctx.env.HOME ? join(ctx.env.HOME, '.claude') : null);
  if (!configDir) return;
  const projects = join(configDir, 'projects');
  // Claude Code names the entry after the real path (a symlinked cwd is filed under its target).
  const here = join(projects, claudeProjectDir(await realpath(ctx.cwd).catch(() => ctx.cwd)));
  const target = join(here, `${id}.jsonl`);
  if (await isFile(target)) return;
  let entries: string[];
  try {
    entries = await readdir(projects);
  } catch {
    return; // no sessions on this machine (or not readable): the CLI will say so
  }
  // The most recently written copy: a session resumed before from several places continues from its latest.
  let source: { path: string; mtimeMs: number } | null = null;
  for (const e of entries) {
    const p = join(projects, e, `${id}.jsonl`);
    const s = await stat(p).catch(() => null);
    if (s?.isFile() && (source === null || s.mtimeMs > source.mtimeMs)) source = { path: p, mtimeMs: s.mtimeMs };
  }
  if (!source) return;
  await mkdir(here, { recursive: true, mode: 0o700 });
  await copyFile(source.path, target);
  if (ctx.agent) {
    await chown(here, ctx.agent.uid, ctx.agent.gid);
    await chown(target, ctx.agent.uid, ctx.agent.gid);
  }
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => null))?.isFile() ?? false;
}
