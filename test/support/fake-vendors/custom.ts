// A vendor no preset knows, as a `custom` session runner describes it (docs/configuration.md, "Session
// runner"): `POST /api/sessions/{id}/messages` `{role, content}`, `GET /api/sessions/{id}` answering
// `{session: {state}, usage: {credits}}`, Bearer key. The example of docs/agents.md, served for real.
import { startFakeVendor, type FakeVendorServer } from './server.js';

export interface FakeCustomSession {
  state: string;
  credits: number;
  messages: string[];
}

export interface FakeCustomVendor extends FakeVendorServer {
  sessions: Map<string, FakeCustomSession>;
  addSession(id: string, state?: string): FakeCustomSession;
}

export const CUSTOM_VENDOR = {
  name: 'example-agents',
  auth: 'bearer',
  messagePath: '/api/sessions/{sessionId}/messages',
  messageBody: { role: 'user', content: '{{prompt}}', session: '{{sessionId}}' },
  statusPath: '/api/sessions/{sessionId}',
  statePointer: '/session/state',
  states: {
    running: ['queued', 'busy'],
    completed: ['done'],
    failed: ['crashed'],
    needsPerson: ['waiting_for_user'],
  },
  spend: { pointer: '/usage/credits', dollarsPerUnit: 0.25 },
} as const;

export async function startFakeCustomVendor(apiKey: string): Promise<FakeCustomVendor> {
  const sessions = new Map<string, FakeCustomSession>();
  const server = await startFakeVendor(
    [
      {
        method: 'POST',
        pattern: '/api/sessions/:id/messages',
        answer: (req) => {
          const s = sessions.get(req.params.id!);
          const body = req.body as { role?: unknown; content?: unknown; session?: unknown } | null;
          if (!s) return { status: 404, body: { error: 'no such session' } };
          if (body?.role !== 'user' || typeof body.content !== 'string' || body.session !== req.params.id)
            return { status: 400, body: { error: 'role, content and session are required' } };
          s.messages.push(body.content);
          s.state = 'busy';
          return { status: 201, body: { ok: true } };
        },
      },
      {
        method: 'GET',
        pattern: '/api/sessions/:id',
        answer: (req) => {
          const s = sessions.get(req.params.id!);
          if (!s) return { status: 404, body: { error: 'no such session' } };
          return {
            status: 200,
            body: { session: { id: req.params.id, state: s.state }, usage: { credits: s.credits } },
          };
        },
      },
    ],
    (auth) => auth === `Bearer ${apiKey}`,
  );
  return {
    ...server,
    sessions,
    addSession(id, state = 'done') {
      const s: FakeCustomSession = { state, credits: 0, messages: [] };
      sessions.set(id, s);
      return s;
    },
  };
}
