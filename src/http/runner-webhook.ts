// The runner's webhook route (SPEC R2; decision 0067): a vendor that follows its own sessions (Cursor's
// cloud agents) posts their status changes here; the runner verifies the signature over the exact
// bytes and ends the run it follows. The body is read raw and capped here, before anything parses it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runner } from '../app/ports.js';

/** Where a `session` runner's vendor posts its status webhook. */
export const RUNNER_WEBHOOK_PATH = '/api/session/webhooks';
/** A status change is well under 4 KiB; this leaves room and no more. */
export const RUNNER_WEBHOOK_MAX_BYTES = 64 * 1024;

export function createRunnerWebhookHandler(
  runner: Required<Pick<Runner, 'receiveWebhook'>>,
  maxBytes = RUNNER_WEBHOOK_MAX_BYTES,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const answer = (status: number, text: string) =>
      void res.writeHead(status, { 'content-type': 'text/plain; charset=UTF-8' }).end(text);
    if (req.method !== 'POST') return answer(405, 'POST only');
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) {
      res.setHeader('connection', 'close');
      return answer(413, `the body is over ${maxBytes} bytes`);
    }
    const raw = await readCapped(req, maxBytes);
    if (raw === null) {
      res.setHeader('connection', 'close');
      return answer(413, `the body is over ${maxBytes} bytes`);
    }
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
    const a = await runner.receiveWebhook(raw, headers);
    answer(a.status, a.body);
  };
}

/** The body, or null once it passes `max` bytes (the rest is not read). */
function readCapped(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        resolve(null);
        return;
      }
      parts.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}
