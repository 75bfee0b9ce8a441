// What a person sees first when `fixloop serve` starts (issue 32; SPEC M1, V3): a few plain lines on
// stderr — the dashboard's address, where the sign-in token is, the Works and the runner, GitHub — and
// what to do next when nothing is configured yet. The JSON logs on stdout stay for machines; this is
// printed always (not only on a TTY), since `docker logs` and the journal are where people look first.
import { relative, isAbsolute } from 'node:path';
import type { Config } from '../config/config.js';
import { WORK_REPOSITORIES_KEY as WORKS_KEY } from '../core/route.js';

/** Where the token comes from: the variable, or the file it is kept in (shown relative to `cwd` when inside it). */
export function tokenWhere(o: { fromVariable: boolean; file: string; cwd: string }): string {
  if (o.fromVariable) return 'from FIXLOOP_API_TOKEN';
  return `in the file ${shortPath(o.file, o.cwd)}`;
}

export function shortPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? `./${rel}` : path;
}

/** The database as a person names it, without a password. */
export function databaseWords(url: string, cwd: string): string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return path === ':memory:' ? 'SQLite in memory (nothing is kept)' : `SQLite ${shortPath(path, cwd)}`;
  }
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

export function startupBanner(
  config: Pick<Config, 'publicUrl' | 'works' | 'runner' | 'github' | 'databaseUrl' | 'configFile'>,
  o: { version: string; listening: string; token: string; cwd: string; fromSources?: boolean },
): string[] {
  const dashboard = `${config.publicUrl}/`;
  const works = config.works.length;
  const gh = config.github;
  const github =
    gh.appId !== null && gh.privateKey !== null
      ? `the GitHub App ${gh.appId}`
      : gh.token !== null
        ? 'a GitHub token (GITHUB_TOKEN)'
        : `not connected — ${config.publicUrl}/setup, or set APP_ID and PRIVATE_KEY_PATH`;
  const runner =
    config.runner === null
      ? 'none (Tasks are followed, no agent is resumed)'
      : config.runner.kind === 'command' && config.runner.preset
        ? `command (${config.runner.preset.name})`
        : config.runner.kind;
  const lines = [
    `fixloop ${o.version} is listening on ${o.listening}`,
    `  Dashboard:  ${dashboard}`,
    `  Sign-in:    the API token, ${o.token}`,
    `  Database:   ${databaseWords(config.databaseUrl, o.cwd)}`,
    `  Works:      ${works === 0 ? 'none' : works} configured${config.configFile ? ` (${shortPath(config.configFile, o.cwd)})` : ''} · runner: ${runner}`,
    `  GitHub:     ${github}`,
  ];
  // Honest about what runs (decision 0026): the sources through tsx when dist/ is absent or older than src/.
  if (o.fromSources)
    lines.push('  Code:       src/ through tsx (dist/ is absent or older than src/; `npm run build` refreshes it)');
  if (works === 0)
    lines.push(
      '  Next:       no Work is configured, so every delivery and Task registration is refused. Add one under',
      `              \`works:\` (name, account, and the repository under ${WORKS_KEY}) in a config file, start`,
      '              with FIXLOOP_CONFIG=that-file (fixloop.example.yaml is one; docs/configuration.md, "Config file").',
      '              Step by step: README, "Connect a real repository in 15 minutes"; the dashboard shows the same.',
    );
  return lines;
}
