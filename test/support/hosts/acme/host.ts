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

export function acmeHost(o: { secret: string; port: ProviderPort | null }): Host {
  return {
    id: ACME_HOST_ID,
    words: ACME_WORDS,
    webhook: { path: ACME_WEBHOOK_PATH, receiver: (deps) => createAcmeReceiver(o.secret, deps) },
    ownsEvent: isAcmeEvent,
    classify: classifyAcmeDelivery,
    port: () => o.port,
  };
}
