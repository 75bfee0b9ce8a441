// Wires the setup page (SPEC V3; decision 0050): app.yml as the manifest, the conversion at GitHub
// (github/manifest-conversion.ts) and the credential files beside the API token
// (github/app-credential-files.ts), behind the dashboard driver's routes (dashboard/setup.tsx).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { DashboardSessions } from '../app/dashboard-sessions-port.js';
import { finishGitHubSetup } from '../app/github-setup.js';
import type { Logger, Random } from '../app/ports.js';
import { readManifest, type AppManifest } from '../core/app-manifest.js';
import type { Config } from '../config/config.js';
import { githubAppDir, hasStoredApp, readStoredAppAbout, storedAppPath } from '../config/github-app-files.js';
import { createSetup } from '../dashboard/setup.js';
import { createAppCredentialFiles } from '../github/app-credential-files.js';
import { createManifestConverter } from '../github/manifest-conversion.js';

/** app.yml at the package's root (beside src/ and dist/): the one manifest (test/deploy/app-manifest.test.ts). */
export const APP_MANIFEST_FILE = new URL('../../app.yml', import.meta.url);

export function readAppManifest(file: URL | string = APP_MANIFEST_FILE): AppManifest {
  return readManifest(parse(readFileSync(file, 'utf8')));
}

export function githubSetupFromConfig(
  config: Pick<Config, 'publicUrl' | 'github' | 'notices' | 'apiToken' | 'apiTokenFile' | 'secretFiles' | 'webhookSecrets'>,
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
  const fromStored = (file: Parameters<typeof storedAppPath>[1]) => config.secretFiles.includes(storedAppPath(dir, file));
  const converter = createManifestConverter(deps.fetch ? { fetch: deps.fetch } : {});
  const store = createAppCredentialFiles(dir);
  return createSetup({
    manifest: deps.manifest ?? readAppManifest(),
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
    finish: (code, target) => finishGitHubSetup({ converter, store }, { code, target }),
    logger: deps.logger,
    ...(deps.random ? { random: deps.random } : {}),
    ...(deps.proxyTrust ? { proxyTrust: deps.proxyTrust } : {}),
  });
}
