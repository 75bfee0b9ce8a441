// Finishing GitHub's App manifest flow (SPEC V3; decision 0050): the one-hour code GitHub hands back
// is traded for the App's id, private key and webhook secret, which are kept as secret files that
// fixloop reads at its next start. The same use-case behind the browser's callback and the CLI twin
// (`fixloop setup github --code`). Its two ports are declared here, by their user.
import type { ConversionFailure, ConvertedApp, SetupOutcome } from '../app/app-setup-port.js';
import { installUrlOf, workSnippet, type GitHubTarget } from './app-manifest.js';

export type { ConversionFailure, ConvertedApp, PendingSetup, SetupOutcome } from '../app/app-setup-port.js';

/** Thrown by a ManifestConverter when GitHub does not give the App: typed, mapped once by the edge. */
export class ConversionError extends Error {
  override readonly name = 'ConversionError';
  constructor(
    readonly reason: ConversionFailure,
    message: string,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
  }
}

/** Trades a manifest code at GitHub's REST API `apiUrl` (the code works once, for an hour). */
export interface ManifestConverter {
  convert(apiUrl: string, code: string): Promise<ConvertedApp>;
}

/** Where the App's credentials are kept: 0600 files in a 0700 directory of fixloop's data. */
export interface AppCredentialStore {
  /** Writes them all, replacing an earlier App's; returns the directory. */
  save(app: ConvertedApp, target: GitHubTarget): Promise<{ dir: string }>;
}

/** A code GitHub could have issued: a short token of URL-safe characters (anything else is not sent on). */
export function plausibleCode(code: string): boolean {
  return /^[A-Za-z0-9_-]{1,100}$/.test(code);
}

export async function finishGitHubSetup(
  deps: { converter: ManifestConverter; store: AppCredentialStore },
  input: { code: string; target: GitHubTarget },
): Promise<SetupOutcome> {
  if (!plausibleCode(input.code)) return { kind: 'failed', reason: 'unknown_code', message: CODE_WORDS };
  let app: ConvertedApp;
  try {
    app = await deps.converter.convert(input.target.apiUrl, input.code);
  } catch (err) {
    if (!(err instanceof ConversionError)) throw err;
    return { kind: 'failed', reason: err.reason, message: err.message };
  }
  if (!app.webhookSecret)
    return {
      kind: 'failed',
      reason: 'no_webhook_secret',
      message: `GitHub created the App ${app.name} without a webhook secret, so fixloop cannot check its deliveries. Set a secret in the App's settings on GitHub (${app.htmlUrl}), then set WEBHOOK_SECRET, APP_ID=${app.id} and PRIVATE_KEY by hand.`,
    };
  const { dir } = await deps.store.save(app, input.target);
  return {
    kind: 'stored',
    app,
    dir,
    installUrl: installUrlOf(app.htmlUrl),
    snippet: workSnippet(app.owner?.login ?? null),
  };
}

/** What a person is told when GitHub does not know the code. */
export const CODE_WORDS =
  "GitHub does not know this code: it works once and for one hour. Start again from fixloop's setup page (or `fixloop setup github`).";
