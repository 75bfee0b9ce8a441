// `fixloop setup github` (SPEC V3, M1; decision 0050): the setup page's twin for a host without a
// browser. Without --code it writes the page that posts fixloop's manifest to GitHub (open it in any
// browser signed in to GitHub) and keeps the setup's state in the data directory; GitHub then sends
// the browser to the callback — a running fixloop finishes there — or the person gives the address
// (or the bare code) to `--code`, which trades it and stores the same files as the page.
import type {
  AppManifest,
  AppManifestFlow,
  PendingSetup,
  SetupAccount,
  SetupOutcome,
  SetupTarget as GitHubTarget,
} from '../app/app-setup-port.js';
import { CliError, type CliIo } from './io.js';

export interface SetupGitHubOptions {
  org?: string;
  name?: string;
  githubUrl?: string;
  code?: string;
}

/** What the command needs, wired by src/wiring/github-setup.ts. */
export interface SetupGitHubDeps {
  /** GitHub's rules and pages of the manifest flow (github/app-manifest.ts GITHUB_MANIFEST_FLOW). */
  flow: AppManifestFlow;
  manifest: AppManifest;
  publicUrl: string;
  /** The GitHub fixloop is configured for, when no --github-url is given. */
  github: GitHubTarget;
  allowInsecureHosts: boolean;
  /** Random URL-safe text of about `bytes` bytes. */
  random(bytes: number): string;
  nowMs(): number;
  /** Keeps the pending setup and the form page (0600); returns the page's path. */
  start(pending: PendingSetup, formHtml: string): string;
  /** The pending setup with this state, taken once; null when none matches. */
  take(state: string): PendingSetup | null;
  /** The pending setup, if any (for a bare code). */
  pending(): PendingSetup | null;
  finish(code: string, target: GitHubTarget): Promise<SetupOutcome>;
}

/** A command-line setup waits this long for GitHub's redirect: as long as GitHub's code lives. */
export const CLI_SETUP_TTL_MS = 60 * 60 * 1000;

export async function setupGitHubCommand(opts: SetupGitHubOptions, io: CliIo, deps: SetupGitHubDeps): Promise<number> {
  return opts.code !== undefined ? finish(opts, io, deps) : start(opts, io, deps);
}

function start(opts: SetupGitHubOptions, io: CliIo, deps: SetupGitHubDeps): number {
  const name =
    opts.name ??
    deps.flow.suggestedAppName(
      deps
        .random(6)
        .replace(/[^A-Za-z0-9]/g, '')
        .toLowerCase()
        .slice(0, 8),
    );
  const problem =
    deps.flow.appNameProblem(name) ?? (opts.org !== undefined ? deps.flow.organizationProblem(opts.org) : null);
  if (problem !== null) throw new CliError(2, problem);
  const target = deps.flow.targetOf(opts.githubUrl ?? '', deps.github, deps.allowInsecureHosts);
  if (target.kind === 'problem') throw new CliError(2, target.problem);
  const account: SetupAccount =
    opts.org !== undefined ? { kind: 'organization', name: opts.org } : { kind: 'personal' };
  const state = deps.random(24);
  const manifest = deps.flow.manifestFor(deps.manifest, { name, publicUrl: deps.publicUrl, target: target.target });
  const action = deps.flow.newAppPageUrl(target.target, account, state);
  const page = deps.start(
    { state, expiresAt: deps.nowMs() + CLI_SETUP_TTL_MS, webUrl: target.target.webUrl, apiUrl: target.target.apiUrl },
    formPage(action, manifest, account),
  );
  const callback = `${deps.publicUrl}${deps.flow.callbackPath}`;
  const warning = deps.flow.unreachableWebhookWarning(deps.publicUrl);
  io.stdout.write(
    [
      `Creating fixloop's GitHub App "${name}" on ${account.kind === 'organization' ? `the organisation ${account.name}` : 'your personal account'} at ${target.target.webUrl}.`,
      `Its webhook: ${manifest.hook_attributes.url}`,
      ...(warning ? [`Warning: ${warning}`] : []),
      '',
      '1. Open this page in a browser signed in to GitHub (copy it to a machine with a browser if this one has none),',
      '   and confirm on GitHub:',
      `     ${page}`,
      `2. GitHub then sends the browser to ${callback}?code=…&state=…`,
      '   - if fixloop is running at that address, it stores the App there and shows the next steps;',
      "   - otherwise copy that whole address from the browser's address bar and run here:",
      "       fixloop setup github --code '<the address>'",
      "GitHub's code works once, for one hour.",
      '',
    ].join('\n'),
  );
  return 0;
}

async function finish(opts: SetupGitHubOptions, io: CliIo, deps: SetupGitHubDeps): Promise<number> {
  const { code, state } = parseCode(opts.code ?? '');
  if (code === '')
    throw new CliError(2, '--code needs the code GitHub sent, or the whole address of the page it sent you to');
  // The setup this host started: the address must carry its state; a bare code goes to its GitHub.
  const pending = deps.pending();
  if (state !== null && (pending === null || pending.state !== state))
    throw new CliError(
      2,
      'that address was not made by a setup started here (or it is older than an hour, or was used): start again with `fixloop setup github`',
    );
  let target: GitHubTarget;
  if (pending !== null) target = pending;
  else {
    const t = deps.flow.targetOf(opts.githubUrl ?? '', deps.github, deps.allowInsecureHosts);
    if (t.kind === 'problem') throw new CliError(2, t.problem);
    target = t.target;
  }
  const outcome = await deps.finish(code, target);
  // Used up, unless GitHub could not be reached (the code is still good: run the same command again).
  if (pending !== null && !(outcome.kind === 'failed' && outcome.reason === 'unreachable')) deps.take(pending.state);
  if (outcome.kind === 'failed') {
    io.stderr.write(`fixloop: ${outcome.message}\n`);
    return 1;
  }
  io.stdout.write(
    [
      `GitHub App "${outcome.app.name}" (id ${outcome.app.id}) created; its id, private key and webhook secret are in`,
      `${outcome.dir} (readable by this user only).`,
      '',
      'Next steps:',
      `1. Install the App on the repositories fixloop should watch: ${outcome.installUrl}`,
      '2. Restart fixloop: it reads these files when it starts (unless APP_ID, PRIVATE_KEY or WEBHOOK_SECRET are set,',
      '   which win).',
      '3. Add a Work for those repositories to the config file (FIXLOOP_CONFIG), e.g.:',
      '',
      ...outcome.snippet
        .trimEnd()
        .split('\n')
        .map((l) => `     ${l}`),
      '',
    ].join('\n'),
  );
  return 0;
}

/** The bare code, or the code and state of the address GitHub sent the browser to. */
function parseCode(raw: string): { code: string; state: string | null } {
  const text = raw.trim();
  if (!text.includes('?') && !text.includes('://')) return { code: text, state: null };
  let query: URLSearchParams;
  try {
    query = new URL(text, 'http://placeholder/').searchParams;
  } catch {
    return { code: '', state: null };
  }
  return { code: query.get('code') ?? '', state: query.get('state') };
}

/** The page that posts the manifest: opened from a file, on any machine with a browser. */
function formPage(action: string, manifest: AppManifest, account: SetupAccount): string {
  const attr = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const where = account.kind === 'organization' ? `the organisation ${account.name}` : 'your personal account';
  return `<!doctype html>
<meta charset="utf-8">
<title>Create fixloop's GitHub App</title>
<h1>Create fixloop's GitHub App</h1>
<p>This creates the GitHub App <strong>${attr(manifest.name)}</strong> on ${attr(where)}, with fixloop's permissions and events
(webhook: ${attr(manifest.hook_attributes.url)}).</p>
<form action="${attr(action)}" method="post">
  <input type="hidden" name="manifest" value="${attr(JSON.stringify(manifest))}">
  <button type="submit">Create the App on GitHub</button>
</form>
`;
}
