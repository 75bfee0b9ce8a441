// The one place where adapters are built from configuration, for the server (main.ts) and for the
// commands that need an adapter without the server (`fixloop pr checks`): the GitHub client the
// credentials describe, and the runner the config describes (SPEC L1, L2, L3) — an `http` runner, or a
// `command` runner whose argv comes from a preset or the config, optionally preparing a fresh
// checkout per run with a token limited to the one repository (github/scoped-token.ts; for a GitLab
// project, wiring/gitlab-workspace-token.ts), its agent isolated from fixloop's secrets as
// runners/isolation.ts chooses.
import type { Clock, Logger, Runner } from './app/ports.js';
import type { ProviderPort } from './app/provider-port.js';
import type { FetchLog } from './app/pr-checks.js';
import type { Config } from './config/config.js';
import type { GitHubConfig } from './config/github-config.js';
import type { CommandRunnerConfig, SessionRunnerConfig } from './config/runner-config.js';
import { createGitHub, type GitHubRequestObserver } from './github/client.js';
import { createGitLab } from './gitlab/client.js';
import type { ConditionalStore } from './github/etag-cache.js';
import { createGitHubFromEnv } from './github/from-env.js';
import { fetchLogTail, type FetchLogTailOptions } from './github/job-log.js';
import { createScopedTokens, type ScopedTokens } from './github/scoped-token.js';
import { createCommandRunner } from './runners/command.js';
import { createHttpRunner } from './runners/http.js';
import { createSessionRunner } from './runners/session.js';
import { devinV3Vendor, SESSION_VENDOR_PRESETS, type SessionVendor } from './runners/session-vendors.js';
import { ConfigError } from './config/errors.js';
import { claudeCodeResume, codexExecResume, type RunnerPreset } from './runners/presets.js';
import { geminiResume } from './runners/gemini-preset.js';
import { opencodeRun } from './runners/opencode-preset.js';
import { ampThreadsContinue } from './runners/amp-preset.js';
import { createWorkspacePreparer } from './runners/workspace.js';
import { agentUserOf, chooseIsolation, fixloopDataPaths } from './runners/isolation.js';
import type { NoticeSink } from './app/notice-sink-port.js';
import { createSlackSink, createWebhookSink } from './sinks/http-sinks.js';
import { createRerun, type RerunLedger, type RequestRerun } from './app/rerun.js';
import { providerOfRepository } from './wiring/provider-of-repository.js';
import { configuredChangeLinks } from './wiring/change-links.js';
import type { ChangeLinks } from './core/change-link.js';
import { gitlabWorkspaceTokensFrom } from './wiring/gitlab-workspace-token.js';

/** The GitHub port fixloop's credentials describe: a token, or a GitHub App; null without either. */
export function githubFromConfig(
  config: Pick<Config, 'github'> & Partial<Pick<Config, 'poll'>>,
  logger: Logger,
  observe?: GitHubRequestObserver,
  etags?: ConditionalStore,
): ProviderPort | null {
  const g = config.github;
  const extra = {
    log: logger,
    ...(observe ? { observe } : {}),
    ...(etags ? { etags } : {}),
    ...(config.poll
      ? { protectionTtlSeconds: config.poll.protectionTtlSeconds, bulkReads: config.poll.bulkReads }
      : {}),
  };
  if (g.token) return createGitHub({ apiUrl: g.apiUrl, auth: { kind: 'token', token: g.token }, ...extra });
  if (g.appId && g.privateKey) {
    return createGitHub({
      apiUrl: g.apiUrl,
      auth: { kind: 'app', appId: g.appId, privateKey: g.privateKey },
      ...extra,
    });
  }
  return null;
}

/**
 * The GitLab port GITLAB_TOKEN describes (src/gitlab/client.ts); null without a token (Q1). `etags`:
 * where its conditional GETs' answers are kept (the server passes the ledger's; default in memory).
 */
export function gitlabFromConfig(
  config: Pick<Config, 'gitlab'>,
  logger: Logger,
  etags?: Parameters<typeof createGitLab>[0]['etags'],
): ProviderPort | null {
  const g = config.gitlab;
  return g.token ? createGitLab({ url: g.url, token: g.token, log: logger, ...(etags ? { etags } : {}) }) : null;
}

/** How job logs are read (J1): https-only, credential-free, size-capped (github/job-log.ts). */
export function jobLogReader(extra: Pick<FetchLogTailOptions, 'ca'> = {}): FetchLog {
  return (url, o) => fetchLogTail(url, { ...o, ...extra });
}

/** What `fixloop pr checks` needs, from the environment alone (no server configuration). */
export function prChecksAdapters(): { github: (env: NodeJS.ProcessEnv) => ProviderPort; fetchLog: FetchLog } {
  return { github: createGitHubFromEnv, fetchLog: jobLogReader() };
}

export interface RunnerFromConfigDeps {
  /**
   * Where the workspace's token comes from. Default: from `config.github` — GITHUB_TOKEN as it is,
   * or, as a GitHub App, an installation token for the one repository. null: clone without a token.
   */
  github?: ScopedTokens | null;
  /**
   * The token source for a gitlab Work's projects. Default: from `config.gitlab` — a project access
   * token minted per project (wiring/gitlab-workspace-token.ts). null: clone without a token.
   */
  gitlab?: ScopedTokens | null;
  /** The parent environment (PATH, HOME, `envAllow`); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The git binary for workspaces; default `git`. */
  git?: string;
  /** fixloop's uid, which decides the default isolation (L3); default process.getuid(). */
  uid?: number | null;
  /** Where a GitLab workspace's fallback to GITLAB_TOKEN is said (GITLAB_WORKSPACE_TOKEN=configured). */
  logger?: Pick<Logger, 'warn'>;
  /** What a session runner measures its runs' timeout by; default the system clock. */
  clock?: Clock;
}

/** null when no runner is configured (the app then refuses to dispatch). */
export function runnerFromConfig(
  config: Pick<
    Config,
    'runner' | 'workDir' | 'github' | 'agentIsolation' | 'databaseUrl' | 'apiTokenFile' | 'secretFiles' | 'configFile'
  > &
    Partial<Pick<Config, 'works' | 'gitlab'>>,
  deps: RunnerFromConfigDeps = {},
): Runner | null {
  const r = config.runner;
  if (r === null) return null;
  if (r.kind === 'http') return createHttpRunner({ url: r.url, secret: r.secret });
  // Issue 35: it comments through the code hosts, so it is built with them (wiring/mention-runner.ts).
  if (r.kind === 'mention') throw new Error('the mention runner is built with the code hosts: mentionRunnerFrom');
  if (r.kind === 'session') {
    const clock = deps.clock;
    return createSessionRunner({
      vendor: sessionVendorOf(r),
      apiKey: r.apiKey,
      webhookSecret: r.webhookSecret,
      pollIntervalMs: r.pollIntervalMs,
      timeoutMs: r.timeoutMs,
      ...(clock ? { now: () => clock.now().getTime() } : {}),
      ...(deps.logger ? { logger: { warn: (o, m) => deps.logger!.warn(o, m), info: () => undefined } } : {}),
    });
  }
  if (r.kind === 'actions') throw new Error('the actions runner is built with the ledger: actionsRunnerFrom');

  // L3: throws a ConfigError when the config asks for what this process cannot do.
  const isolation = chooseIsolation({
    ...config.agentIsolation,
    processUid: deps.uid !== undefined ? deps.uid : (process.getuid?.() ?? null),
    workDir: config.workDir,
    hide: fixloopDataPaths(config),
    configFile: config.configFile,
  });
  const owner = agentUserOf(isolation);
  const agentUid = owner ? owner.uid : deps.uid !== undefined ? deps.uid : (process.getuid?.() ?? null);
  if (
    r.preset?.name === 'claude-code-resume' &&
    r.preset.options.permissionMode === 'bypassPermissions' &&
    agentUid === 0
  )
    throw ConfigError.at(
      config.configFile ?? 'environment',
      ['runner', 'presetOptions', 'permissionMode'],
      'bypassPermissions cannot work for an agent that runs as root: Claude Code refuses it; run the agent as another user (runner.isolation: user or bwrap) or choose another permission mode',
    );
  const settings = commandSettings(r);
  const w = r.workspace;
  // Issue 19: a gitlab Work's project is cloned from its GitLab clone URL with a token minted for that
  // project; every other repository from the GitHub one with GitHub's. GitHub's token is never asked
  // for a GitLab project, nor GitLab's for a GitHub repository.
  const providerOf = providerOfRepository(config.works ?? []);
  const tokens = w === null ? null : deps.github !== undefined ? deps.github : scopedTokensFrom(config.github);
  const gitlabTokens =
    w === null
      ? null
      : deps.gitlab !== undefined
        ? deps.gitlab
        : config.gitlab
          ? gitlabWorkspaceTokensFrom(config.gitlab, deps.logger ? { logger: deps.logger } : {})
          : null;
  const tokensFor = (repository: string) => (providerOf(repository) === 'gitlab' ? gitlabTokens : tokens);
  const workspace =
    w === null
      ? undefined
      : createWorkspacePreparer({
          root: config.workDir,
          cloneUrl: (repository) =>
            (providerOf(repository) === 'gitlab' ? w.gitlabCloneUrl : w.cloneUrl).replaceAll(
              '{repository}',
              repository,
            ),
          ...(tokens || gitlabTokens
            ? {
                token: async (repository: string) => {
                  const source = tokensFor(repository);
                  return source ? source.forRepository(repository) : null;
                },
              }
            : {}),
          instructions: { files: { ...w.files } },
          depth: w.depth,
          layout: w.layout,
          timeoutMs: w.timeoutMs,
          ...(w.identity ? { identity: { ...w.identity } } : {}),
          ...(deps.git ? { git: deps.git } : {}),
          ...(deps.env ? { env: deps.env } : {}),
          ...(owner ? { owner: { uid: owner.uid, gid: owner.gid } } : {}),
        });
  return createCommandRunner({
    command: [...settings.command],
    envAllow: [...settings.envAllow],
    stdinFromPromptFile: settings.stdinFromPromptFile,
    ...(settings.runFiles ? { runFiles: settings.runFiles } : {}),
    ...(settings.runEnv ? { runEnv: settings.runEnv } : {}),
    ...(settings.beforeStart ? { beforeStart: settings.beforeStart } : {}),
    ...(settings.spendOf ? { spendOf: settings.spendOf } : {}),
    workDir: config.workDir,
    ...(r.cwd !== null ? { cwd: r.cwd } : {}),
    ...(workspace ? { workspace } : {}),
    ...(deps.env ? { env: deps.env } : {}),
    isolation,
  });
}

/** R2: the vendor a session runner speaks to: a preset (at `baseUrl` when set) or the config's description. */
export function sessionVendorOf(r: SessionRunnerConfig): SessionVendor {
  if (r.vendor === 'devin' && r.devin !== null) {
    const { orgId, acuPrice } = r.devin;
    return r.baseUrl === null ? devinV3Vendor(orgId, acuPrice) : devinV3Vendor(orgId, acuPrice, r.baseUrl);
  }
  if (r.vendor !== 'custom') {
    const preset = SESSION_VENDOR_PRESETS[r.vendor];
    return r.baseUrl === null ? preset() : preset(r.baseUrl);
  }
  const c = r.custom!;
  return {
    name: c.name,
    baseUrl: r.baseUrl!,
    auth: c.auth,
    messagePath: c.messagePath,
    messageBody: c.messageBody,
    statusPath: c.statusPath,
    statePointer: c.statePointer,
    states: { completed: c.states.completed, failed: c.states.failed, needsPerson: c.states.needsPerson },
    spend: c.spend ?? null,
    webhook: c.webhook ?? null,
  };
}

/** argv, allowed variables and stdin of a command runner: the preset's (plus `envAllow`), or the config's. */
export function commandSettings(r: CommandRunnerConfig): RunnerPreset {
  if (r.preset === null) {
    return { command: [...(r.command ?? [])], envAllow: [...r.envAllow], stdinFromPromptFile: r.stdinFromPromptFile };
  }
  const preset = presetSettings(r.preset);
  return { ...preset, envAllow: [...new Set([...preset.envAllow, ...r.envAllow])] };
}

function presetSettings(p: NonNullable<CommandRunnerConfig['preset']>): RunnerPreset {
  switch (p.name) {
    case 'claude-code-resume':
      return claudeCodeResume(p.options);
    case 'codex-exec-resume':
      return codexExecResume(p.options);
    case 'gemini-resume':
      return geminiResume(p.options);
    case 'opencode-run':
      return opencodeRun(p.options);
    case 'amp-threads-continue':
      return ampThreadsContinue(p.options);
    default: {
      const never: never = p;
      throw new Error(`unknown preset ${JSON.stringify(never)}`);
    }
  }
}

/** The workspace's token source from fixloop's GitHub credentials; null without any. */
export function scopedTokensFrom(github: GitHubConfig): ScopedTokens | null {
  if (github.token) return createScopedTokens({ apiUrl: github.apiUrl, auth: { kind: 'token', token: github.token } });
  if (github.appId && github.privateKey) {
    return createScopedTokens({
      apiUrl: github.apiUrl,
      auth: { kind: 'app', appId: github.appId, privateKey: github.privateKey },
    });
  }
  return null;
}

/** The notice sinks the config describes (G1, P4; decision 0025). */
export function noticeSinksFromConfig(
  config: Pick<Config, 'notices' | 'gitlab' | 'works'>,
  fetchImpl?: typeof fetch,
  /** How each repository's change is linked (the host registry's, wiring/change-links.ts); default: the built-in hosts'. */
  links: ChangeLinks = configuredChangeLinks(config),
): NoticeSink[] {
  const { sinks, timeoutMs } = config.notices;
  // Issues 31, 34: a notice links the change on its own host (a merge request on GITLAB_URL, …).
  return sinks.map((s) => {
    const base = { name: s.name, url: s.url, links, timeoutMs, ...(fetchImpl ? { fetch: fetchImpl } : {}) };
    return s.kind === 'slack' ? createSlackSink(base) : createWebhookSink({ ...base, secret: s.secret });
  });
}

/**
 * T2 (issue 17): the durable re-run of a head's failed jobs, as the gate's `requestRerun`; null
 * without GitHub access (a transient failure then goes to the agent).
 */
export function rerunFromConfig(
  config: Pick<Config, 'rerunsPerHead'>,
  ledger: RerunLedger,
  github: ProviderPort | null,
  logger: Logger,
): RequestRerun | null {
  return github ? createRerun({ ledger, host: github, perHead: config.rerunsPerHead, logger }) : null;
}
