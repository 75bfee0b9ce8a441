// Acme Forge as a code host (a fake third host, test-only; docs/adding-a-host.md): its id, words,
// webhook receiver, classifier and port half, behind the one `Host` contract the registry holds
// (src/app/hosts.ts). Registered with `createFixloop(config, { hosts: [acmeHost(…)] })`, and its Works
// name it (`provider: acme`, the config loaded with `hosts: ['acme']`): nothing else changes.
import type { Host } from '../../../../src/app/hosts.js';
import type { ProviderPort } from '../../../../src/app/provider-port.js';
import { ACME_HOST_ID, classifyAcmeDelivery, isAcmeEvent } from './classify.js';
import { createAcmeReceiver } from './webhook.js';
import { ACME_WORDS } from './words.js';

export const ACME_WEBHOOK_PATH = '/api/acme/webhooks';

/** Where Acme Forge's change pages live unless told otherwise: `<webUrl>/<owner>/<repo>/changes/<n>`. */
export const ACME_WEB_URL = 'https://forge.acme.example';

/** Q1: the reason an Acme delivery about a repository no acme Work lists is ignored with. */
export const NO_ACME_WORK = 'no_acme_work';

export function acmeHost(o: { secret: string; port: ProviderPort | null; webUrl?: string }): Host {
  return {
    id: ACME_HOST_ID,
    words: ACME_WORDS,
    webUrl: o.webUrl ?? ACME_WEB_URL,
    noWorkReason: NO_ACME_WORK,
    webhook: { path: ACME_WEBHOOK_PATH, receiver: (deps) => createAcmeReceiver(o.secret, deps) },
    ownsEvent: isAcmeEvent,
    classify: classifyAcmeDelivery,
    port: () => o.port,
  };
}
