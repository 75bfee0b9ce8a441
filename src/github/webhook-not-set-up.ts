// POST /api/github/webhooks before GitHub is connected (SPEC V3, A1; decision 0050): with no webhook
// secret no delivery can be verified, so none is read or stored; the sender is told why and what to
// do, with 503 (GitHub shows the answer in the App's "Recent Deliveries" and can redeliver later).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, refuse } from '../hosts/webhook-edge.js';

export function createWebhookNotSetUp(setupUrl: string) {
  return async function webhookNotSetUp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    refuse(
      req,
      res,
      new HttpError(
        503,
        'not_set_up',
        `fixloop has no GitHub webhook secret yet, so it cannot check this delivery: connect GitHub at ${setupUrl} (or set WEBHOOK_SECRET) and restart fixloop, then redeliver`,
      ),
      { 'retry-after': '3600' },
    );
  };
}
