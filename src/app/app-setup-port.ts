// Creating a code host's App from a manifest in the browser, or on the command line (SPEC V3, M5;
// decision 0050): what the setup page (dashboard/setup.tsx) and the setup command (cli/) are driven
// through. The host's half — its manifest, its pages, its rules for names and addresses, trading the
// code — lives in its folder (GitHub's: src/github/app-manifest.ts, src/github/setup.ts) and reaches
// the drivers as an AppManifestFlow from the composition root (src/wiring/github-setup.ts).

/** The fields of GitHub's manifest format fixloop sends (docs: "Registering a GitHub App from a manifest"). */
export interface AppManifest {
  name: string;
  description?: string;
  url: string;
  hook_attributes: { url: string; active: boolean };
  redirect_url: string;
  public: boolean;
  default_permissions: Record<string, 'read' | 'write'>;
  default_events: string[];
  [key: string]: unknown;
}

/** Where the App is created: the signed-in person's own account, or an organisation they manage. */
export type SetupAccount = { kind: 'personal' } | { kind: 'organization'; name: string };

/** The host a setup talks to: its web origin (where people go) and its REST base URL. */
export interface SetupTarget {
  webUrl: string;
  apiUrl: string;
}

/** A problem with what a person typed, said in words they can act on; null when it is fine. */
export type Problem = string | null;

/** What GitHub answers a conversion with (POST /app-manifests/{code}/conversions, 201). */
export interface ConvertedApp {
  id: number;
  slug: string;
  name: string;
  htmlUrl: string;
  /** The account the App belongs to (a person or an organisation). */
  owner: { login: string; type: string } | null;
  pem: string;
  /** GitHub documents it as nullable; fixloop needs one to check deliveries. */
  webhookSecret: string | null;
  clientId: string | null;
  clientSecret: string | null;
}

/** Why a conversion did not give an App: each said to the person with what to do. */
export type ConversionFailure = 'unknown_code' | 'unreachable' | 'refused';

/** A setup started on the command line, waiting for GitHub's redirect: its state and the GitHub it went to. */
export interface PendingSetup {
  state: string;
  expiresAt: number;
  webUrl: string;
  apiUrl: string;
}

export type SetupOutcome =
  | {
      kind: 'stored';
      app: ConvertedApp;
      dir: string;
      /** Where the person installs the App on repositories. */
      installUrl: string;
      /** A Work for the config file, on the App's account. */
      snippet: string;
    }
  | { kind: 'failed'; reason: ConversionFailure | 'no_webhook_secret'; message: string };

/** The host's rules and pages of the flow, pure: what the page and the command call. */
export interface AppManifestFlow {
  /** Where the host sends the browser back with `?code=…&state=…` (relative to FIXLOOP_PUBLIC_URL). */
  callbackPath: string;
  /** The public host: what an empty server address field means. */
  publicTarget: SetupTarget;
  /** The host a typed server address names; an empty one is `fallback`. */
  targetOf(
    raw: string,
    fallback: SetupTarget,
    allowInsecure: boolean,
  ): { kind: 'ok'; target: SetupTarget } | { kind: 'problem'; problem: string };
  /** The host's page that takes the manifest, with the state it hands back. */
  newAppPageUrl(target: SetupTarget, account: SetupAccount, state: string): string;
  appNameProblem(name: string): Problem;
  organizationProblem(name: string): Problem;
  suggestedAppName(suffix: string): string;
  /** fixloop's manifest for this App: its name, webhook and callback on FIXLOOP_PUBLIC_URL. */
  manifestFor(base: AppManifest, o: { name: string; publicUrl: string; target: SetupTarget }): AppManifest;
  /** A warning when the host cannot deliver to FIXLOOP_PUBLIC_URL; null when it can. */
  unreachableWebhookWarning(publicUrl: string): string | null;
  /** Where a person installs the App on repositories. */
  installUrlOf(htmlUrl: string): string;
}
