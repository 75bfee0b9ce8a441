// The notice sinks as loaded (SPEC G1, P4; decision 0025): each named and unique, a webhook always with
// its secret, the environment's URL or secret filling the one sink of its kind.
import { ConfigError } from './errors.js';
import type { ConfigFile } from './schema.js';
import type { EnvConfig } from './env-schema.js';
import { defaultCloneUrl } from './github-config.js';

/** One notice sink as resolved: its name is unique, and a webhook always has its secret. */
export type NoticeSinkConfig =
  | { readonly kind: 'slack'; readonly name: string; readonly url: string }
  | { readonly kind: 'webhook'; readonly name: string; readonly url: string; readonly secret: string };

export interface NoticesConfig {
  readonly sinks: readonly NoticeSinkConfig[];
  readonly retry: { readonly maxAttempts: number; readonly initialMs: number; readonly maxMs: number };
  readonly timeoutMs: number;
  /** GitHub's web origin (https://github.com or the GHE host), for links to pull requests. */
  readonly webUrl: string;
}

/**
 * G1/P4: the sinks, named (default: the kind), with their secrets. The environment wins for the one
 * sink of its kind; FIXLOOP_SLACK_WEBHOOK_URL alone adds a `slack` sink. With two sinks of a kind the
 * variable could mean either, so that is an error.
 */
export function resolveNotices(
  n: ConfigFile['notices'],
  vars: EnvConfig,
  file: string | null,
  warnings: string[],
): NoticesConfig {
  const where = file ?? 'environment';
  const raw = [...n.sinks];
  const slackUrl = vars.FIXLOOP_SLACK_WEBHOOK_URL;
  const hookSecret = vars.FIXLOOP_NOTICE_WEBHOOK_SECRET;
  if (slackUrl !== undefined && !raw.some((s) => s.kind === 'slack')) raw.push({ kind: 'slack', url: slackUrl });
  const ofKind = (kind: string) => raw.filter((s) => s.kind === kind).length;
  if (slackUrl !== undefined && ofKind('slack') > 1)
    throw ConfigError.at(
      'environment',
      ['FIXLOOP_SLACK_WEBHOOK_URL'],
      "is ambiguous with more than one slack sink; set each sink's `url` instead",
    );
  if (hookSecret !== undefined && ofKind('webhook') > 1)
    throw ConfigError.at(
      'environment',
      ['FIXLOOP_NOTICE_WEBHOOK_SECRET'],
      "is ambiguous with more than one webhook sink; set each sink's `secret` instead",
    );
  if (hookSecret !== undefined && ofKind('webhook') === 0)
    warnings.push('FIXLOOP_NOTICE_WEBHOOK_SECRET is set but no notices.sinks entry has kind webhook; it is unused');
  const names = new Set<string>();
  const sinks = raw.map((s, i): NoticeSinkConfig => {
    const name = s.name ?? s.kind;
    if (names.has(name))
      throw ConfigError.at(
        where,
        ['notices', 'sinks', i, 'name'],
        `two sinks are named "${name}"; give each its own \`name\``,
      );
    names.add(name);
    if (s.kind === 'slack') {
      const url = slackUrl ?? s.url;
      if (url === undefined)
        throw ConfigError.at(
          where,
          ['notices', 'sinks', i, 'url'],
          'is required for a slack sink (or set FIXLOOP_SLACK_WEBHOOK_URL)',
        );
      return { kind: 'slack', name, url };
    }
    const secret = hookSecret ?? s.secret;
    if (secret === undefined)
      throw ConfigError.at(
        where,
        ['notices', 'sinks', i, 'secret'],
        'is required for a webhook sink (or set FIXLOOP_NOTICE_WEBHOOK_SECRET)',
      );
    return { kind: 'webhook', name, url: s.url, secret };
  });
  return {
    sinks,
    retry: {
      maxAttempts: n.retry.maxAttempts,
      initialMs: n.retry.initialSeconds * 1000,
      maxMs: n.retry.maxSeconds * 1000,
    },
    timeoutMs: n.timeoutSeconds * 1000,
    webUrl: defaultCloneUrl(vars).replace(/\/\{repository\}\.git$/, ''),
  };
}
