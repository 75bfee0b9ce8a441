// The runner as loaded (SPEC L1, L2, L3, R2): a preset or a hand-written command with its workspace, an
// http runner with its secret, or a session runner with its vendor and key, and how the agent is isolated. The environment wins where both set it
// (decision 0006 (g)); a preset that cannot run where it is configured is refused at load.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { ConfigError } from './errors.js';
import type { ConfigFile } from './schema.js';
import type { EnvConfig } from './env-schema.js';
import { RUNNER_PRESETS, type RunnerPresetName } from './runner-preset-schema.js';
import type { customSessionVendorSchema, IsolationMode, SESSION_VENDORS } from './runner-schema.js';
import { defaultCloneUrl } from './github-config.js';
import { MENTION_TRIGGERS, type MentionAgent } from '../core/mention-comment.js';
import { MENTION_DEFAULT_IDENTITY } from './mention-runner-schema.js';
import { isLoopbackHostname } from './insecure-hosts.js';

/** GitHub Actions' OIDC issuer, unless FIXLOOP_ACTIONS_OIDC_ISSUER names another (tests: a fake one). */
export const DEFAULT_ACTIONS_OIDC_ISSUER = 'https://token.actions.githubusercontent.com';

/** A ready-made command runner (src/runners/presets.ts) and its own options, as validated. */
export type RunnerPresetConfig = {
  [N in RunnerPresetName]: { readonly name: N; readonly options: Readonly<z.output<(typeof RUNNER_PRESETS)[N]>> };
}[RunnerPresetName];

/** L2: a fresh checkout of the Task's branch per run (src/runners/workspace.ts). */
export interface WorkspaceConfig {
  /** What to clone, `{repository}` standing for `owner/name`. */
  readonly cloneUrl: string;
  /** What to clone for a gitlab Work's project: `gitlabCloneUrl`, else a set `cloneUrl`, else GITLAB_URL's. */
  readonly gitlabCloneUrl: string;
  readonly depth: number;
  readonly layout: 'per-run' | 'per-task';
  /** Each git command's time limit. */
  readonly timeoutMs: number;
  /** Author and committer of the agent's commits; null = the workspace's default. */
  readonly identity: { readonly name: string; readonly email: string } | null;
  /** Written into the checkout in place of the branch's own agent files (AGENTS.md, .mcp.json, …). */
  readonly files: Readonly<Record<string, string>>;
}

export interface CommandRunnerConfig {
  readonly kind: 'command';
  /** A preset builds argv, its envAllow and stdin; null for a hand-written `command`. */
  readonly preset: RunnerPresetConfig | null;
  /** The hand-written argv; null with a preset. Never empty (an empty `command` means no runner). */
  readonly command: readonly string[] | null;
  /** Variables the agent may inherit, besides the preset's own. */
  readonly envAllow: readonly string[];
  /** For a hand-written command: the prompt file is the agent's stdin. */
  readonly stdinFromPromptFile: boolean;
  readonly cwd: string | null;
  readonly workspace: WorkspaceConfig | null;
}

/** R2: a vendor's REST session, continued and followed (src/runners/session.ts; decision 0067). */
export interface SessionRunnerConfig {
  readonly kind: 'session';
  readonly vendor: (typeof SESSION_VENDORS)[number];
  /** null: the preset's documented API. */
  readonly baseUrl: string | null;
  readonly pollIntervalMs: number;
  readonly timeoutMs: number;
  /** Devin's API v3 (decision 0074): the organization, and the US dollars per ACU (null: ACUs told, not counted); null: API v1. */
  readonly devin: { readonly orgId: string; readonly acuPrice: number | null } | null;
  /** The vendor described, for `custom`; null for a preset. */
  readonly custom: z.output<typeof customSessionVendorSchema> | null;
  /** From FIXLOOP_SESSION_API_KEY_FILE. */
  readonly apiKey: string;
  /** From FIXLOOP_SESSION_WEBHOOK_SECRET_FILE; null: the vendor's webhook is refused. */
  readonly webhookSecret: string | null;
}

export type RunnerConfig =
  | CommandRunnerConfig
  | { readonly kind: 'http'; readonly url: string; readonly secret: string }
  | MentionRunnerConfig
  | SessionRunnerConfig
  | ActionsRunnerConfig;

/** Issue 35 item 3: the workflow dispatched on the Task's branch, how often its run is read, whose OIDC tokens are taken. */
export interface ActionsRunnerConfig {
  readonly kind: 'actions';
  /** A workflow file name (`fixloop-agent.yml`) or its numeric id; null when every Work is on GitLab (a pipeline needs none). */
  readonly workflow: string | null;
  readonly pollMs: number;
  /** The issuer of the workflow's OIDC tokens (FIXLOOP_ACTIONS_OIDC_ISSUER; GitHub Actions' by default). */
  readonly oidcIssuer: string;
  /** Issue 35 item 6: the issuer of GitLab CI's ID tokens, for a gitlab Work's pipelines (FIXLOOP_GITLAB_OIDC_ISSUER; GITLAB_URL by default). */
  readonly gitlabOidcIssuer: string;
}

/** Issue 35: the agent mentioned on the pull request, its handle, and the token of the person who mentions it (null: fixloop's own). */
export interface MentionRunnerConfig {
  readonly kind: 'mention';
  readonly agent: MentionAgent;
  readonly trigger: string;
  /** Whose comment it is (`user`: a person's token on the repository's host). */
  readonly as: 'app' | 'user';
  /** The person's GitHub token (FIXLOOP_MENTION_TOKEN), with `as: user`. */
  readonly userToken: string | null;
  /** The person's GitLab token (FIXLOOP_GITLAB_MENTION_TOKEN), with `as: user`. */
  readonly gitlabUserToken: string | null;
  /** How often the agent's work events are read (Copilot's finish), in seconds. */
  readonly pollSeconds: number;
  /** Whether fixloop approves the workflow runs of the agent's push that wait for approval (GitHub). */
  readonly approveWorkflows: boolean;
}

/** L3: how a command runner isolates its agent and as whom; null = the default (src/runners/isolation.ts). */
export interface AgentIsolationConfig {
  readonly mode: IsolationMode | null;
  readonly user: string | null;
}

export function resolveRunner(
  runner: ConfigFile['runner'],
  vars: EnvConfig,
  file: string | null,
  warnings: string[],
  works: ConfigFile['works'] = [],
): RunnerConfig | null {
  if (runner === undefined) return null;
  switch (runner.kind) {
    case 'command': {
      if (runner.preset === undefined && (runner.command ?? []).length === 0) return null;
      const preset = runner.preset === undefined ? null : presetConfig(runner.preset, runner.presetOptions);
      const w = runner.workspace;
      // A preset that places the session under the checkout's path keeps one path per Task.
      const layout =
        w?.layout ??
        (preset?.name === 'claude-code-resume' || preset?.name === 'gemini-resume' ? 'per-task' : 'per-run');
      const workspace: WorkspaceConfig | null =
        w === undefined
          ? null
          : {
              cloneUrl: w.cloneUrl ?? defaultCloneUrl(vars),
              gitlabCloneUrl:
                w.gitlabCloneUrl ?? w.cloneUrl ?? `${vars.GITLAB_URL.replace(/\/+$/, '')}/{repository}.git`,
              depth: w.depth,
              layout,
              timeoutMs: w.timeoutSeconds * 1000,
              identity: w.identity ?? null,
              files: w.files,
            };
      if (preset?.name === 'gemini-resume' && workspace === null)
        throw ConfigError.at(
          file ?? 'environment',
          ['runner', 'workspace'],
          "preset gemini-resume needs runner.workspace (a checkout of the Task's branch): fixloop writes Gemini CLI's settings (its MCP server) into the checkout's .gemini/settings.json, never into a directory of yours",
        );
      if (preset?.name === 'opencode-run' && workspace !== null)
        throw ConfigError.at(
          file ?? 'environment',
          ['runner', 'workspace'],
          'preset opencode-run resumes a session only in the directory it began in (OpenCode 1.18 never ends a resumed run elsewhere): set runner.cwd to the checkout the agent opened the pull request from, without runner.workspace',
        );
      if (preset?.name === 'codex-exec-resume') {
        const problem = codexPresetProblem(workspace, runner.cwd);
        if (problem) throw ConfigError.at(file ?? 'environment', ['runner', runner.cwd ? 'cwd' : 'workspace'], problem);
      }
      return {
        kind: 'command',
        preset,
        command: preset === null ? (runner.command ?? []) : null,
        envAllow: runner.envAllow,
        stdinFromPromptFile: runner.stdinFromPromptFile ?? false,
        cwd: runner.cwd ?? null,
        workspace,
      };
    }
    case 'http': {
      const secret = vars.FIXLOOP_RUNNER_SECRET ?? runner.secret;
      if (secret === undefined) {
        throw ConfigError.at(
          file ?? 'environment',
          ['runner', 'secret'],
          'is required for an http runner (or set FIXLOOP_RUNNER_SECRET)',
        );
      }
      return { kind: 'http', url: runner.url, secret };
    }
    case 'mention': {
      const as = runner.as ?? MENTION_DEFAULT_IDENTITY[runner.agent];
      const token = vars.FIXLOOP_MENTION_TOKEN;
      const gitlabToken = vars.FIXLOOP_GITLAB_MENTION_TOKEN;
      const where = runner.agent === 'duo' ? 'FIXLOOP_GITLAB_MENTION_TOKEN_FILE' : 'FIXLOOP_MENTION_TOKEN_FILE';
      if (as === 'user' && token === undefined && gitlabToken === undefined)
        throw ConfigError.at(
          file ?? 'environment',
          ['runner', 'as'],
          `mentions ${runner.agent} as a person (as: user), whose token must be in ${where} (FIXLOOP_MENTION_TOKEN_FILE for GitHub, FIXLOOP_GITLAB_MENTION_TOKEN_FILE for GitLab)${runner.agent === 'claude' ? '' : `: ${runner.agent} ignores mentions from bots, so fixloop's own identity cannot wake it`}`,
        );
      return {
        kind: 'mention',
        agent: runner.agent,
        // The schema requires a handle for an agent without a default one (duo).
        trigger: runner.trigger ?? MENTION_TRIGGERS[runner.agent] ?? '',
        as,
        userToken: as === 'user' ? (token ?? null) : null,
        gitlabUserToken: as === 'user' ? (gitlabToken ?? null) : null,
        pollSeconds: runner.pollSeconds ?? 60,
        approveWorkflows: runner.approveWorkflows ?? false,
      };
    }
    case 'session': {
      if (vars.FIXLOOP_SESSION_API_KEY_FILE === undefined) {
        throw ConfigError.at(
          'environment',
          ['FIXLOOP_SESSION_API_KEY_FILE'],
          `is required for a session runner: the file holding the ${runner.vendor} API key (a key is never read from the config file)`,
        );
      }
      return {
        kind: 'session',
        vendor: runner.vendor,
        baseUrl: runner.baseUrl ?? null,
        pollIntervalMs: Math.round(runner.pollSeconds * 1000),
        timeoutMs: Math.round(runner.timeoutMinutes * 60_000),
        custom: runner.custom ?? null,
        devin: runner.devin ? { orgId: runner.devin.orgId, acuPrice: runner.devin.acuPrice ?? null } : null,
        apiKey: readSecret('FIXLOOP_SESSION_API_KEY_FILE', vars.FIXLOOP_SESSION_API_KEY_FILE),
        webhookSecret:
          vars.FIXLOOP_SESSION_WEBHOOK_SECRET_FILE === undefined
            ? null
            : readSecret('FIXLOOP_SESSION_WEBHOOK_SECRET_FILE', vars.FIXLOOP_SESSION_WEBHOOK_SECRET_FILE),
      };
    }
    case 'actions': {
      const issuer = (vars.FIXLOOP_ACTIONS_OIDC_ISSUER ?? DEFAULT_ACTIONS_OIDC_ISSUER).replace(/\/+$/, '');
      const secureIssuer = (name: string, value: string) => {
        const url = new URL(value);
        if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHostname(url.hostname)))
          throw ConfigError.at(
            'environment',
            [name],
            'must be an https URL (plain http only to this machine, for tests): the keys read from it decide who gets a run token',
          );
      };
      secureIssuer('FIXLOOP_ACTIONS_OIDC_ISSUER', issuer);
      // GitLab's ID tokens name the instance's own URL as their issuer; an override is held to the same rule.
      const gitlabIssuer = (vars.FIXLOOP_GITLAB_OIDC_ISSUER ?? vars.GITLAB_URL).replace(/\/+$/, '');
      if (vars.FIXLOOP_GITLAB_OIDC_ISSUER !== undefined) secureIssuer('FIXLOOP_GITLAB_OIDC_ISSUER', gitlabIssuer);
      // A repository no Work names is GitHub's: with no Works, or any Work not on GitLab, a workflow is dispatched.
      const onGitHub = works.length === 0 || works.some((w) => w.provider !== 'gitlab');
      if (runner.workflow === undefined && onGitHub)
        throw ConfigError.at(
          file ?? 'environment',
          ['runner', 'workflow'],
          'is required when a Work is on GitHub: the workflow file fixloop dispatches to resume the agent, e.g. "fixloop-agent.yml" (a gitlab Work starts a pipeline and needs none)',
        );
      return {
        kind: 'actions',
        workflow: runner.workflow ?? null,
        pollMs: runner.pollSeconds * 1000,
        oidcIssuer: issuer,
        gitlabOidcIssuer: gitlabIssuer,
      };
    }
    default: {
      const never: never = runner;
      throw new Error(`unknown runner ${JSON.stringify(never)}`);
    }
  }
}

/** A secret read from the file a `_FILE` variable names, trimmed; its text never appears in an error. */
function readSecret(fileVar: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw ConfigError.at(
      'environment',
      [fileVar],
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  if (text === '') throw ConfigError.at('environment', [fileVar], `names an empty file (${path})`);
  return text;
}

/** The preset's options, typed by its schema (already checked by configFileSchema). */
function presetConfig(name: RunnerPresetName, options: Record<string, unknown> | undefined): RunnerPresetConfig {
  switch (name) {
    case 'claude-code-resume':
      return { name, options: RUNNER_PRESETS[name].parse(options ?? {}) };
    case 'codex-exec-resume':
      return { name, options: RUNNER_PRESETS[name].parse(options ?? {}) };
    case 'gemini-resume':
      return { name, options: RUNNER_PRESETS[name].parse(options ?? {}) };
    case 'opencode-run':
      return { name, options: RUNNER_PRESETS[name].parse(options ?? {}) };
    case 'amp-threads-continue':
      return { name, options: RUNNER_PRESETS[name].parse(options ?? {}) };
  }
}

/**
 * Codex's git-directory rule: `codex exec` refuses a working directory that is not a git checkout,
 * so the preset needs a workspace, or a `cwd` that is a checkout.
 */
function codexPresetProblem(workspace: WorkspaceConfig | null, cwd: string | undefined): string | null {
  if (workspace !== null) return null;
  if (cwd === undefined)
    return "preset codex-exec-resume needs runner.workspace (a checkout of the Task's branch per run), or runner.cwd naming a git checkout: `codex exec` refuses a directory that is not one";
  if (!existsSync(join(cwd, '.git')))
    return `preset codex-exec-resume runs in runner.cwd ${JSON.stringify(cwd)}, which is not a git checkout (no .git): \`codex exec\` refuses it; configure runner.workspace instead`;
  return null;
}

/** L3: the environment wins; the default (null) is chosen by the runner's builder. `none` is said out loud. */
export function resolveIsolation(
  runner: ConfigFile['runner'],
  vars: EnvConfig,
  warnings: string[],
): AgentIsolationConfig {
  const fromFile = runner?.kind === 'command' ? runner : undefined;
  const mode = vars.FIXLOOP_AGENT_ISOLATION ?? fromFile?.isolation ?? null;
  if (mode === 'none' && runner?.kind === 'command') {
    warnings.push(
      'runner.isolation is none: the agent runs as fixloop\'s own user and can read its secrets (its /proc/<pid>/environ, the data directory); see docs/agents.md, "Running agents safely"',
    );
  }
  return { mode, user: vars.FIXLOOP_AGENT_USER ?? fromFile?.user ?? null };
}
