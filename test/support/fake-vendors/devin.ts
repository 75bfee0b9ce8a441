// A fake Devin API v1 (docs.devin.ai/api-reference, the External API): `POST
// /v1/sessions/{session_id}/message` with `{message}` and `GET /v1/sessions/{session_id}` answering
// the session details with `status_enum`; Bearer key. A test sets each session's state, and what a
// message moves it to (a working Devin picks a message up and says `working`).
import { startFakeVendor, type FakeVendorServer } from './server.js';

export type DevinStatus =
  | 'working'
  | 'blocked'
  | 'expired'
  | 'finished'
  | 'suspend_requested'
  | 'suspend_requested_frontend'
  | 'resume_requested'
  | 'resume_requested_frontend'
  | 'resumed';

export interface FakeDevinSession {
  status_enum: DevinStatus;
  /** The state a message moves the session to; null leaves it as it is. */
  onMessage: DevinStatus | null;
  messages: string[];
}

export interface FakeDevin extends FakeVendorServer {
  sessions: Map<string, FakeDevinSession>;
  addSession(id: string, status?: DevinStatus, onMessage?: DevinStatus | null): FakeDevinSession;
}

export async function startFakeDevin(apiKey: string): Promise<FakeDevin> {
  const sessions = new Map<string, FakeDevinSession>();
  const server = await startFakeVendor(
    [
      {
        method: 'POST',
        pattern: '/v1/sessions/:id/message',
        answer: (req) => {
          const s = sessions.get(req.params.id!);
          if (!s) return { status: 404, body: { detail: 'Session not found' } };
          const message = (req.body as { message?: unknown } | null)?.message;
          if (typeof message !== 'string') return { status: 422, body: { detail: 'message is required' } };
          s.messages.push(message);
          if (s.onMessage) s.status_enum = s.onMessage;
          return { status: 200, body: { detail: 'Message sent' } };
        },
      },
      {
        method: 'GET',
        pattern: '/v1/sessions/:id',
        answer: (req) => {
          const id = req.params.id!;
          const s = sessions.get(id);
          if (!s) return { status: 404, body: { detail: 'Session not found' } };
          return {
            status: 200,
            body: {
              session_id: id,
              status: s.status_enum === 'finished' ? 'exit' : 'running',
              status_enum: s.status_enum,
              title: 'Fix the cart total',
              created_at: '2026-11-30T07:00:00Z',
              updated_at: '2026-11-30T08:00:00Z',
              snapshot_id: null,
              playbook_id: null,
              tags: [],
              pull_request: { url: 'https://github.com/acme/shop/pull/41' },
              structured_output: null,
              messages: s.messages.map((m) => ({ type: 'user_message', message: m })),
            },
          };
        },
      },
    ],
    (auth) => auth === `Bearer ${apiKey}`,
  );
  return {
    ...server,
    sessions,
    addSession(id, status = 'blocked', onMessage = 'working') {
      const s: FakeDevinSession = { status_enum: status, onMessage, messages: [] };
      sessions.set(id, s);
      return s;
    },
  };
}
