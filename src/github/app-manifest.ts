// Connecting GitHub from the browser (SPEC V3, M5; decision 0050): the pure half of GitHub's App
// manifest flow. From app.yml (the one manifest, read by the caller) and a person's choices — the
// App's name, a personal account or an organisation, github.com or an Enterprise Server — it builds
// the manifest, the GitHub page it is posted to, and what the person is told afterwards. No I/O,
// no clock, no randomness: the caller passes the random parts in. Its types are the setup port's
// (app/app-setup-port.ts), which the setup page and command are driven through.
import type { AppManifest, AppManifestFlow, Problem, SetupAccount, SetupTarget } from '../app/app-setup-port.js';

export type { AppManifest, Problem, SetupAccount } from '../app/app-setup-port.js';
/** The GitHub a setup talks to: its web origin (where people go) and its REST base URL. */
export type GitHubTarget = SetupTarget;

/** The public github.com: what an empty "Enterprise Server" field means. */
export const GITHUB_COM: GitHubTarget = { webUrl: 'https://github.com', apiUrl: 'https://api.github.com' };

/** Where GitHub sends the browser back with `?code=…&state=…` (relative to FIXLOOP_PUBLIC_URL). */
export const SETUP_CALLBACK_PATH = '/setup/github/callback';
/** Where fixloop's webhook listens (Probot's path; src/http/router.ts). */
export const GITHUB_WEBHOOK_PATH = '/api/github/webhooks';
/** GitHub's limit on an App's name. */
export const APP_NAME_MAX = 34;

/** GitHub App names are global on GitHub: a name a person may pick (letters, digits, spaces, `-`, `_`, `.`). */
export function appNameProblem(name: string): Problem {
  if (name.trim() === '') return 'Give the App a name.';
  if (name.length > APP_NAME_MAX) return `GitHub allows at most ${APP_NAME_MAX} characters in an App's name.`;
  if (!/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/.test(name))
    return 'Use letters, digits, spaces, dashes, dots or underscores, starting with a letter or digit.';
  return null;
}

/** An organisation's login as GitHub allows it (39 characters, letters, digits, single dashes). */
export function organizationProblem(name: string): Problem {
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(name))
    return 'That is not an organisation name as GitHub spells it (letters, digits and single dashes).';
  return null;
}

/**
 * `fixloop-<suffix>`: a name unlikely to be taken on GitHub already (names are global), from a
 * random suffix the caller makes (lower-case letters and digits).
 */
export function suggestedAppName(suffix: string): string {
  return `fixloop-${suffix
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, APP_NAME_MAX - 'fixloop-'.length)}`;
}

/**
 * The GitHub an Enterprise Server base URL names (`https://ghe.example.com` → its `/api/v3`; a
 * GHE.com `*.ghe.com` host → `api.<host>`); an empty field is `fallback`. Refused: not a URL, or
 * plain http to another machine unless the lab opt-out (FIXLOOP_ALLOW_INSECURE_HOSTS) is set — the
 * App's private key comes back over it.
 */
export function githubTargetOf(
  raw: string,
  fallback: GitHubTarget,
  allowInsecure: boolean,
): { kind: 'ok'; target: GitHubTarget } | { kind: 'problem'; problem: string } {
  const text = raw.trim();
  if (text === '') return { kind: 'ok', target: fallback };
  let url: URL;
  try {
    url = new URL(/^[a-z]+:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return {
      kind: 'problem',
      problem: 'The GitHub Enterprise Server address is not a URL (e.g. https://github.example.com).',
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { kind: 'problem', problem: 'The GitHub Enterprise Server address must start with https://.' };
  if (url.protocol === 'http:' && !isLoopbackHostname(url.hostname) && !allowInsecure)
    return {
      kind: 'problem',
      problem:
        "The App's private key would travel in clear text over plain http: use the server's https address (or set FIXLOOP_ALLOW_INSECURE_HOSTS=1 in a lab).",
    };
  const web = url.origin;
  if (web === GITHUB_COM.webUrl) return { kind: 'ok', target: GITHUB_COM };
  if (/\.ghe\.com$/i.test(url.hostname) && !/^api\./i.test(url.hostname))
    return { kind: 'ok', target: { webUrl: web, apiUrl: `${url.protocol}//api.${url.host}` } };
  return { kind: 'ok', target: { webUrl: web, apiUrl: `${web}/api/v3` } };
}

/** The GitHub page that takes the manifest (POST, form field `manifest`), with the state GitHub hands back. */
export function newAppPageUrl(target: GitHubTarget, account: SetupAccount, state: string): string {
  const path =
    account.kind === 'organization'
      ? `/organizations/${encodeURIComponent(account.name)}/settings/apps/new`
      : '/settings/apps/new';
  return `${target.webUrl}${path}?state=${encodeURIComponent(state)}`;
}

/**
 * app.yml with the person's choices: the name they picked, the webhook at FIXLOOP_PUBLIC_URL, GitHub's
 * redirect to the callback, and the App's home page on the GitHub it is created on. Permissions and
 * events are app.yml's, untouched.
 */
export function fixloopManifest(
  base: AppManifest,
  o: { name: string; publicUrl: string; target: GitHubTarget },
): AppManifest {
  const publicUrl = o.publicUrl.replace(/\/+$/, '');
  return {
    ...base,
    name: o.name,
    url: o.target.webUrl,
    hook_attributes: { ...base.hook_attributes, url: `${publicUrl}${GITHUB_WEBHOOK_PATH}`, active: true },
    redirect_url: `${publicUrl}${SETUP_CALLBACK_PATH}`,
    default_permissions: { ...base.default_permissions },
    default_events: [...base.default_events],
  };
}

/** app.yml as parsed, checked for the fields the flow needs; a thrown Error names what is missing. */
export function readManifest(parsed: unknown): AppManifest {
  const m = parsed as Partial<AppManifest> | null;
  const ok =
    m !== null &&
    typeof m === 'object' &&
    typeof m.name === 'string' &&
    typeof m.hook_attributes === 'object' &&
    m.hook_attributes !== null &&
    typeof m.default_permissions === 'object' &&
    Array.isArray(m.default_events);
  if (!ok)
    throw new Error(
      'app.yml is not a GitHub App manifest (name, hook_attributes, default_permissions, default_events)',
    );
  return { url: 'https://github.com', redirect_url: '', public: false, ...m } as AppManifest;
}

/**
 * Why GitHub could not deliver webhooks to this public URL, or null: a loopback or private address,
 * or a name only this network resolves. fixloop still works by polling without webhooks (E3).
 */
export function unreachableWebhookWarning(publicUrl: string): string | null {
  let host: string;
  try {
    host = new URL(publicUrl).hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  } catch {
    return `FIXLOOP_PUBLIC_URL (${publicUrl}) is not a URL GitHub can deliver to.`;
  }
  const privateV4 = /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|0\.)/.test(host);
  const local = isLoopbackHostname(host) || privateV4 || host === '0.0.0.0' || host === '::' || !host.includes('.');
  const internalName = /\.(local|internal|lan|home|localdomain)$/.test(host);
  if (!local && !internalName && !/^(fc|fd)[0-9a-f]{2}:/.test(host)) return null;
  return (
    `The webhook address ${publicUrl}${GITHUB_WEBHOOK_PATH} is on this machine or a private network: GitHub ` +
    'cannot reach it, so no webhook will arrive (fixloop still sees pull requests by polling, more slowly). ' +
    'Set FIXLOOP_PUBLIC_URL to the address GitHub can reach (a public host name, or a tunnel) and restart first, ' +
    "or change the App's webhook URL on GitHub later."
  );
}

/** The page where a person installs the App on their repositories. */
export function installUrlOf(htmlUrl: string): string {
  return `${htmlUrl.replace(/\/+$/, '')}/installations/new`;
}

/** A Work for the config file, on the account the App was created on: one repository holds the data (SPEC C2). */
export function workSnippet(owner: string | null): string {
  const account = owner ?? 'your-account';
  return [
    'works:',
    `  - name: ${account}`,
    `    account: ${account}`,
    '    repositories:',
    `      - name: ${account}/your-repository`,
    '        role: data',
    '',
  ].join('\n');
}

/** 127.0.0.0/8, ::1 or localhost. */
function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** GitHub's half of the setup flow, as the setup page and command take it (app/app-setup-port.ts). */
export const GITHUB_MANIFEST_FLOW: AppManifestFlow = {
  callbackPath: SETUP_CALLBACK_PATH,
  publicTarget: GITHUB_COM,
  targetOf: githubTargetOf,
  newAppPageUrl,
  appNameProblem,
  organizationProblem,
  suggestedAppName,
  manifestFor: fixloopManifest,
  unreachableWebhookWarning,
  installUrlOf,
};
