// Wires the setup page (SPEC V3; decision 0050): app.yml as the manifest, the conversion at GitHub
// (github/manifest-conversion.ts) and the credential files beside the API token
// (github/app-credential-files.ts), behind the dashboard driver's routes (dashboard/setup.tsx).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { parse } from 'yaml';
import type { DashboardSessions } from '../app/dashboard-sessions-port.js';
import type { Logger, Random } from '../app/ports.js';
import { GITHUB_MANIFEST_FLOW, readManifest, type AppManifest } from '../github/app-manifest.js';
import { finishGitHubSetup } from '../github/setup.js';
import type { Config } from '../config/config.js';
import { githubAppDir, hasStoredApp, readStoredAppAbout, storedAppPath } from '../config/github-app-files.js';
import { createSetup } from '../dashboard/setup.js';
import {
  createAppCredentialFiles,
  readPendingSetup,
  takePendingSetup,
  writePendingSetup,
} from '../github/app-credential-files.js';
import { setupGitHubCommand, type SetupGitHubOptions } from '../cli/setup-github.js';
import type { CliIo } from '../cli/io.js';
import { loadConfig } from '../config/config.js';
import { createManifestConverter } from '../github/manifest-conversion.js';

/** app.yml at the package's root (beside src/ and dist/): the one manifest (test/deploy/app-manifest.test.ts). */
export const APP_MANIFEST_FILE = new URL('../../app.yml', import.meta.url);

export function readAppManifest(file: URL | string = APP_MANIFEST_FILE): AppManifest {
  return readManifest(parse(readFileSync(file, 'utf8')));
}

const MISSING =
  "fixloop's GitHub App manifest (app.yml) is missing from this installation: connect GitHub by hand (docs/setup-github.md).";

export function githubSetupFromConfig(
  config: Pick<
    Config,
    'publicUrl' | 'github' | 'notices' | 'apiToken' | 'apiTokenFile' | 'secretFiles' | 'webhookSecrets'
  >,
  deps: {
    sessions: DashboardSessions;
    logger: Logger;
    proxyTrust?: (peer: string | undefined) => number;
    random?: Random;
    allowInsecureHosts?: boolean;
    manifest?: AppManifest;
    fetch?: typeof fetch;
  },
) {
  const dir = githubAppDir(config.apiTokenFile);
  const fromStored = (file: Parameters<typeof storedAppPath>[1]) =>
    config.secretFiles.includes(storedAppPath(dir, file));
  const converter = createManifestConverter(deps.fetch ? { fetch: deps.fetch } : {});
  const store = createAppCredentialFiles(dir);
  let manifest: AppManifest;
  try {
    manifest = deps.manifest ?? readAppManifest();
  } catch (err) {
    // An installation without app.yml still serves everything else; the page says what is missing.
    deps.logger.warn({ err }, 'setup: app.yml cannot be read, so /setup cannot create a GitHub App');
    const app = new Hono();
    app.all('/setup/*', (c) => c.text(MISSING, 503));
    app.all('/setup', (c) => c.text(MISSING, 503));
    return { app };
  }
  return createSetup({
    flow: GITHUB_MANIFEST_FLOW,
    manifest,
    publicUrl: config.publicUrl,
    github: { webUrl: config.notices.webUrl, apiUrl: config.github.apiUrl },
    allowInsecureHosts: deps.allowInsecureHosts ?? false,
    apiToken: config.apiToken,
    sessions: deps.sessions,
    hasCredentials: () => config.github.appId !== null || config.github.token !== null || hasStoredApp(dir),
    storedApp: () => readStoredAppAbout(dir),
    environment: {
      appId: config.github.appId !== null && !fromStored('privateKey'),
      token: config.github.token !== null,
      webhookSecret: config.webhookSecrets.length > 0 && !fromStored('webhookSecret'),
    },
    takePendingState: (state) => {
      const p = takePendingSetup(dir, state, Date.now());
      return p === null ? null : { webUrl: p.webUrl, apiUrl: p.apiUrl };
    },
    finish: (code, target) => finishGitHubSetup({ converter, store }, { code, target }),
    logger: deps.logger,
    ...(deps.random ? { random: deps.random } : {}),
    ...(deps.proxyTrust ? { proxyTrust: deps.proxyTrust } : {}),
  });
}

/** `fixloop setup github` (src/cli/setup-github.ts) with its adapters, on the configuration the environment describes. */
export async function runSetupGitHub(opts: SetupGitHubOptions, io: CliIo, configFile?: string): Promise<number> {
  const config = loadConfig({ env: io.env, ...(configFile ? { file: configFile } : {}) });
  const dir = githubAppDir(config.apiTokenFile);
  const converter = createManifestConverter({ fetch: io.fetch });
  const store = createAppCredentialFiles(dir);
  const nowMs = () => (typeof io.now === 'function' ? io.now().getTime() : Date.now());
  return setupGitHubCommand(opts, io, {
    flow: GITHUB_MANIFEST_FLOW,
    manifest: readAppManifest(),
    publicUrl: config.publicUrl,
    github: { webUrl: config.notices.webUrl, apiUrl: config.github.apiUrl },
    allowInsecureHosts: isAllowed(io.env.FIXLOOP_ALLOW_INSECURE_HOSTS),
    random: (bytes) => randomBytes(bytes).toString('base64url'),
    nowMs,
    start: (pending, html) => writePendingSetup(dir, pending, html),
    take: (state) => takePendingSetup(dir, state, nowMs()),
    pending: () => readPendingSetup(dir, nowMs()),
    finish: (code, target) => finishGitHubSetup({ converter, store }, { code, target }),
  });
}

const isAllowed = (v: string | undefined) => v?.trim() === '1' || v?.trim().toLowerCase() === 'true';
