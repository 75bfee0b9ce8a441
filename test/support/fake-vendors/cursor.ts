// A fake Cursor cloud agents API (cursor.com/docs/cloud-agent/api): `POST /v0/agents/{id}/followup`
// with `{prompt: {text}}`, `GET /v0/agents/{id}` answering the agent with `status` (CREATING,
// RUNNING, FINISHED, ERROR, EXPIRED); the key as HTTP Basic user. Its status webhook is sent by the
// test: `statusChange`, signed `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body>`.
import { createHmac } from 'node:crypto';
import { startFakeVendor, type FakeVendorServer } from './server.js';

export type CursorStatus = 'CREATING' | 'RUNNING' | 'FINISHED' | 'ERROR' | 'EXPIRED';

export interface FakeCursorAgent {
  status: CursorStatus;
  followups: string[];
}

export interface FakeCursor extends FakeVendorServer {
  agents: Map<string, FakeCursorAgent>;
  addAgent(id: string, status?: CursorStatus): FakeCursorAgent;
  /** POSTs the agent's statusChange to `url`, signed with `secret`; answers fixloop's status. */
  sendStatusChange(url: string, secret: string, id: string, status: CursorStatus): Promise<number>;
}

export function cursorWebhookBody(id: string, status: CursorStatus): string {
  return JSON.stringify({
    event: 'statusChange',
    timestamp: '2026-11-30T08:05:00.000Z',
    id,
    status,
    source: { repository: 'https://github.com/acme/shop', ref: 'main' },
    target: {
      url: `https://cursor.com/agents?id=${id}`,
      branchName: 'agent/fix-41',
      prUrl: 'https://github.com/acme/shop/pull/41',
    },
    summary: 'Fixed the cart total',
  });
}

export function cursorSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export async function startFakeCursor(apiKey: string): Promise<FakeCursor> {
  const agents = new Map<string, FakeCursorAgent>();
  const basic = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;
  const server = await startFakeVendor(
    [
      {
        method: 'POST',
        pattern: '/v0/agents/:id/followup',
        answer: (req) => {
          const a = agents.get(req.params.id!);
          if (!a) return { status: 404, body: { error: 'Agent not found' } };
          const text = (req.body as { prompt?: { text?: unknown } } | null)?.prompt?.text;
          if (typeof text !== 'string') return { status: 400, body: { error: 'prompt.text is required' } };
          a.followups.push(text);
          a.status = 'RUNNING';
          return { status: 200, body: { id: req.params.id } };
        },
      },
      {
        method: 'GET',
        pattern: '/v0/agents/:id',
        answer: (req) => {
          const id = req.params.id!;
          const a = agents.get(id);
          if (!a) return { status: 404, body: { error: 'Agent not found' } };
          return {
            status: 200,
            body: {
              id,
              name: 'Fix the cart total',
              status: a.status,
              source: { repository: 'https://github.com/acme/shop', ref: 'main' },
              target: {
                branchName: 'agent/fix-41',
                url: `https://cursor.com/agents?id=${id}`,
                prUrl: 'https://github.com/acme/shop/pull/41',
                autoCreatePr: false,
              },
              summary: a.status === 'FINISHED' ? 'Fixed the cart total' : undefined,
              createdAt: '2026-11-30T07:00:00.000Z',
            },
          };
        },
      },
    ],
    (auth) => auth === basic,
  );
  return {
    ...server,
    agents,
    addAgent(id, status = 'FINISHED') {
      const a: FakeCursorAgent = { status, followups: [] };
      agents.set(id, a);
      return a;
    },
    async sendStatusChange(url, secret, id, status) {
      const a = agents.get(id);
      if (a) a.status = status;
      const body = cursorWebhookBody(id, status);
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-webhook-signature': cursorSignature(secret, body),
          'x-webhook-id': `msg_${id}_${status}`,
          'x-webhook-event': 'statusChange',
          'user-agent': 'Cursor-Agent-Webhook/1.0',
        },
        body,
      });
      await res.text();
      return res.status;
    },
  };
}
