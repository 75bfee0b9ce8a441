// The one webhook route (SPEC A1, Q1; decision 0060): a POST to a host's webhook path goes to that
// host's receiver, which reads and verifies the exact bytes itself (its signature check, header
// names and event name live in its folder: github/webhook.ts, gitlab/webhook.ts). Every receiver
// gets the same bounds and the same ingest use-case, so bodies are capped, refused and answered the
// same way (413, 401, 400, 503) whichever host sent them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HostRegistry, WebhookReceiverDeps } from '../app/hosts.js';

export type WebhookHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface WebhookRoutes {
  /** Every path a host delivers to (each reads its raw body itself, so the API's body limits skip it). */
  readonly paths: readonly string[];
  /** The receiver of `path`, or undefined when no registered host delivers there. */
  receiverFor(path: string): WebhookHandler | undefined;
}

/** One receiver per registered host, built once with the shared bounds. */
export function createWebhookRoutes(registry: Pick<HostRegistry, 'hosts'>, deps: WebhookReceiverDeps): WebhookRoutes {
  const receivers = new Map(registry.hosts.map((h) => [h.webhook.path, h.webhook.receiver(deps)]));
  return { paths: [...receivers.keys()], receiverFor: (path) => receivers.get(path) };
}
