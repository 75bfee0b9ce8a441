// The `workspace` of a command runner (SPEC L2): what to clone for a run, how deep, where, and which
// agent files replace the branch's own — refusing paths that would write outside the checkout or into .git.
import { z } from 'zod';

const WORKSPACE_LAYOUTS = ['per-run', 'per-task'] as const;

/** Why a path cannot name a file the workspace writes into the checkout; null when it can. */
function workspaceFileProblem(path: string): string | null {
  const segs = path.split('/');
  if (path === '' || /[\0\\]/.test(path)) return 'is not a plain relative path';
  if (path.startsWith('/')) return 'must be relative to the checkout';
  if (segs.some((s) => s === '' || s === '.' || s === '..')) return 'must not contain empty, "." or ".." segments';
  if (segs[0]!.toLowerCase() === '.git') return 'must not be inside .git';
  return null;
}

/** A line of git config: no line breaks or NULs. */
const gitConfigValue = z
  .string()
  .trim()
  .min(1)
  .refine((v) => !/[\0\r\n]/.test(v), 'must be one line');

/** L2: a fresh checkout of the Task's branch per run (src/runners/workspace.ts). */
export const workspaceSchema = z.strictObject({
  /**
   * What to clone, `{repository}` standing for `owner/name`: an http(s) URL (the scoped token is
   * sent to it), a file:// URL or an absolute path. Default: the GitHub web host (see config.ts).
   */
  cloneUrl: z
    .string()
    .refine(
      (v) => v.includes('{repository}'),
      'must contain {repository} (owner/name), e.g. "https://github.com/{repository}.git"',
    )
    .refine((v) => /^(https?:\/\/|file:\/\/|\/)/i.test(v), 'must be an http(s) or file:// URL, or an absolute path')
    .optional(),
  /**
   * What to clone for a gitlab Work's project, `{repository}` standing for its path
   * (`group/sub/project`). Default: `cloneUrl` when that is set, else `GITLAB_URL/{repository}.git`.
   */
  gitlabCloneUrl: z
    .string()
    .refine(
      (v) => v.includes('{repository}'),
      'must contain {repository} (group/project), e.g. "https://gitlab.com/{repository}.git"',
    )
    .refine((v) => /^(https?:\/\/|file:\/\/|\/)/i.test(v), 'must be an http(s) or file:// URL, or an absolute path')
    .optional(),
  depth: z.int().min(1).max(100_000).default(50),
  /** Default `per-task` with the claude-code-resume preset (resumes need a stable path), else `per-run`. */
  layout: z.enum(WORKSPACE_LAYOUTS).optional(),
  /** Each git command's time limit. */
  timeoutSeconds: z.int().min(1).max(3600).default(300),
  /** Author and committer of the agent's commits. */
  identity: z.strictObject({ name: gitConfigValue, email: gitConfigValue }).optional(),
  /** The agent's instructions and MCP config, checkout path → content; the branch's own never count. */
  files: z
    .record(z.string(), z.string())
    .superRefine((files, ctx) => {
      for (const path of Object.keys(files)) {
        const problem = workspaceFileProblem(path);
        if (problem)
          ctx.addIssue({ code: 'custom', path: [path], message: `file path ${JSON.stringify(path)} ${problem}` });
      }
    })
    .default({}),
});
