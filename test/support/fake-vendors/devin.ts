// A fake Devin API v1 (docs.devin.ai/api-reference, the External API): `POST
// /v1/sessions/{session_id}/message` with `{message}` and `GET /v1/sessions/{session_id}` answering
// the session details with `status_enum`; Bearer key. A test sets each session's state, and what a
// message moves it to (a working Devin picks a message up and says `working`).
// And Devin API v3 (decision 0074), for a service user's key in an organization: `POST
// /v3/organizations/{org_id}/sessions/{devin_id}/messages` with `{message}` and `GET
// /v3/organizations/{org_id}/sessions/{devin_id}` answering the documented SessionResponse — `status`,
// `status_detail` (the v1 state in v3's words) and `acus_consumed`, the session's ACUs so far, which
// a message's work raises by the session's `acusPerMessage`.
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
  /** The session's ACUs so far (v3 reports them). */
  acus: number;
  /** The ACUs one message's work adds. */
  acusPerMessage: number;
  /** The organization the session belongs to (v3's paths name it). */
  orgId: string;
}

/** v1's state in v3's words: `status` and `status_detail`. */
const V3: Record<DevinStatus, [string, string]> = {
  working: ['running', 'working'],
  blocked: ['running', 'waiting_for_user'],
  expired: ['error', 'error'],
  finished: ['exit', 'finished'],
  suspend_requested: ['suspended', 'user_request'],
  suspend_requested_frontend: ['suspended', 'user_request'],
  resume_requested: ['resuming', 'working'],
  resume_requested_frontend: ['resuming', 'working'],
  resumed: ['running', 'working'],
};

export interface FakeDevin extends FakeVendorServer {
  sessions: Map<string, FakeDevinSession>;
  addSession(
    id: string,
    status?: DevinStatus,
    onMessage?: DevinStatus | null,
    usage?: { acus?: number; acusPerMessage?: number; orgId?: string },
  ): FakeDevinSession;
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
        method: 'POST',
        pattern: '/v3/organizations/:org/sessions/:id/messages',
        answer: (req) => {
          const s = sessions.get(req.params.id!);
          if (!s || s.orgId !== req.params.org) return { status: 404, body: { detail: 'Session not found' } };
          const message = (req.body as { message?: unknown } | null)?.message;
          if (typeof message !== 'string') return { status: 422, body: { detail: 'message is required' } };
          s.messages.push(message);
          s.acus += s.acusPerMessage;
          if (s.onMessage) s.status_enum = s.onMessage;
          return { status: 200, body: { detail: 'Message sent' } };
        },
      },
      {
        method: 'GET',
        pattern: '/v3/organizations/:org/sessions/:id',
        answer: (req) => {
          const id = req.params.id!;
          const s = sessions.get(id);
          if (!s || s.orgId !== req.params.org) return { status: 404, body: { detail: 'Session not found' } };
          const [status, detail] = V3[s.status_enum];
          return {
            status: 200,
            body: {
              acus_consumed: s.acus,
              created_at: 1_764_486_000,
              org_id: s.orgId,
              pull_requests: [{ pr_state: 'open', pr_url: 'https://github.com/acme/shop/pull/41' }],
              session_id: id,
              status,
              status_detail: detail,
              tags: [],
              updated_at: 1_764_489_600,
              url: `https://app.devin.ai/sessions/${id}`,
              is_advanced: false,
              is_archived: false,
              parent_session_id: null,
              child_session_ids: null,
              structured_output: null,
              title: 'Fix the cart total',
              user_id: null,
            },
          };
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
    addSession(id, status = 'blocked', onMessage = 'working', usage = {}) {
      const s: FakeDevinSession = {
        status_enum: status,
        onMessage,
        messages: [],
        acus: usage.acus ?? 0,
        acusPerMessage: usage.acusPerMessage ?? 0,
        orgId: usage.orgId ?? 'org-acme',
      };
      sessions.set(id, s);
      return s;
    },
  };
}
