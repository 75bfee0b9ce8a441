// A scripted stand-in for the Anthropic Messages API, so tests can run the real Claude Code CLI
// (ANTHROPIC_BASE_URL=<url>, any ANTHROPIC_API_KEY) with no model service. Each POST /v1/messages
// is answered by the script — a queue of turns or a function of the request — and every request
// is recorded, so a test can assert which tools were offered, which tool_result came back, and
// that a resumed conversation carries the earlier session's messages.
//
// Claude Code 2.1.x talks to the base URL like this: `HEAD /` (a reachability probe), then
// `POST /v1/messages?beta=true` with `stream: true` for every agent turn. Side calls the CLI may
// make (non-streaming JSON, `/v1/messages/count_tokens`) are answered too so the CLI never fails
// on them. Agent turns always stream; a non-streaming request is a side call (e.g. the auto-mode
// permission classifier) and does not consume a queued turn.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listenLoopback } from './loopback.js';

export type ReplyBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id?: string; name: string; input: Record<string, unknown> };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** One assistant turn. `stopReason` defaults to `tool_use` when a tool_use block is present, else `end_turn`. */
export interface TurnReply {
  content: ReplyBlock[];
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';
  usage?: Partial<Usage>;
  /** Wait this long before answering (to exercise timeouts and cancellation). */
  delayMs?: number;
}

/** An Anthropic API error, e.g. `{ status: 401, type: 'authentication_error', message: 'invalid x-api-key' }`. */
export interface ErrorReply {
  status: number;
  type: string;
  message: string;
  /** Sent as `x-should-retry`; false by default so a 4xx/5xx fails at once (the CLI still retries a 529 twice). */
  retry?: boolean;
}

export type Reply = TurnReply | ErrorReply;

export interface FakeMessagesRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, as sent. */
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /** The system prompt flattened to one string (it is sent as text blocks). */
  system: string;
  /** As sent; 2.1.x also puts `role: 'system'` entries mid-conversation. */
  messages: Array<{ role: 'user' | 'assistant' | 'system'; content: string | Array<Record<string, unknown>> }>;
  /** Names of the tools offered, e.g. `Bash`, `mcp__fixloop__pull_request_checks`. */
  tools: string[];
  /** A non-streaming side call, answered by `opts.side` rather than the script. */
  side: boolean;
}

/** A queue of turns, consumed one per agent request; or a function deciding each reply (`turn` counts agent requests from 0). */
export type Script =
  Reply[] | ((req: FakeMessagesRequest, turn: number) => Reply | undefined | Promise<Reply | undefined>);

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeAnthropic {
  /** Base URL for ANTHROPIC_BASE_URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Every HTTP request, in arrival order, whatever its path. */
  requests: RecordedRequest[];
  /** The agent-turn POST /v1/messages requests (side calls excluded), in order. */
  turns: FakeMessagesRequest[];
  /** Why a request got a fallback answer: script exhausted, unknown path, unparsable body. Empty in a clean run. */
  unexpected: string[];
  close(): Promise<void>;
}

export interface FakeAnthropicOptions {
  /** Answer for side calls (non-streaming requests). Default: `defaultSide`. */
  side?: (req: FakeMessagesRequest) => Reply;
}

export const text = (t: string): ReplyBlock => ({ type: 'text', text: t });
export const toolUse = (name: string, input: Record<string, unknown>, id?: string): ReplyBlock =>
  id === undefined ? { type: 'tool_use', name, input } : { type: 'tool_use', id, name, input };

/**
 * The default side-call answer. `--permission-mode auto` asks the model, as a "security monitor",
 * to judge each unlisted Bash command and wants `<block>no</block>` or `<block>yes</block><reason>…`;
 * anything else reads as "could not evaluate" and the command is denied. Allow by default.
 */
export function defaultSide(req: FakeMessagesRequest): Reply {
  if (req.system.includes('security monitor')) return { content: [text('<block>no</block>')] };
  return { content: [text('Fake side reply')] };
}

/** The tool_result blocks of the request's last user message (what the CLI sends back after our tool_use). */
export function toolResults(
  req: FakeMessagesRequest,
): Array<{ tool_use_id: string; is_error: boolean; content: string }> {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!last || typeof last.content === 'string') return [];
  return last.content
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({ tool_use_id: String(b.tool_use_id), is_error: b.is_error === true, content: flatten(b.content) }));
}

/** All text of a content value (string, or blocks with `text`/nested `content`), joined by newlines. */
export function flatten(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: Record<string, unknown>) => (typeof b.text === 'string' ? b.text : flatten(b.content)))
    .join('\n');
}

export async function startFakeAnthropic(script: Script, opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  const turns: FakeMessagesRequest[] = [];
  const unexpected: string[] = [];
  const queue = Array.isArray(script) ? [...script] : null;
  let toolIds = 0;
  let msgIds = 0;

  const decide = async (req: FakeMessagesRequest): Promise<Reply> => {
    if (req.side) return opts.side?.(req) ?? defaultSide(req);
    const turn = turns.length;
    turns.push(req);
    const reply = queue ? queue.shift() : await (script as Exclude<Script, Reply[]>)(req, turn);
    if (reply) return reply;
    // Ending the turn (rather than erroring) lets the CLI exit cleanly; the test sees `unexpected`.
    unexpected.push(`no scripted reply for turn ${turn}`);
    return { content: [text('fake-anthropic: script exhausted')] };
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      unexpected.push(`handler failed: ${String(err)}`);
      if (!res.headersSent) sendError(res, { status: 500, type: 'api_error', message: String(err) });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the raw text in the record */
    }
    requests.push({ method: req.method ?? '', path, headers: req.headers, body });

    if (req.method === 'HEAD' || (req.method === 'GET' && path === '/')) return void res.writeHead(200).end();
    if (req.method !== 'POST' || typeof body !== 'object' || body === null) {
      unexpected.push(`${req.method} ${path}`);
      return sendError(res, { status: 404, type: 'not_found_error', message: `fake-anthropic: no ${path}` });
    }
    const b = body as Record<string, unknown>;
    if (path === '/v1/messages/count_tokens') {
      return sendJson(res, 200, { input_tokens: Math.ceil(JSON.stringify(b.messages ?? []).length / 4) });
    }
    if (path !== '/v1/messages') {
      unexpected.push(`POST ${path}`);
      return sendError(res, { status: 404, type: 'not_found_error', message: `fake-anthropic: no ${path}` });
    }

    const tools = Array.isArray(b.tools) ? b.tools.map((t: { name?: unknown }) => String(t.name)) : [];
    const mreq: FakeMessagesRequest = {
      path,
      headers: req.headers,
      body: b,
      model: String(b.model ?? ''),
      stream: b.stream === true,
      system: flatten(b.system),
      messages: Array.isArray(b.messages) ? (b.messages as FakeMessagesRequest['messages']) : [],
      tools,
      side: b.stream !== true,
    };
    const reply = await decide(mreq);
    if ('status' in reply) return sendError(res, reply);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));

    const content = reply.content.map((c) =>
      c.type === 'tool_use' ? { ...c, id: c.id ?? `toolu_fake_${String(++toolIds).padStart(4, '0')}` } : c,
    );
    const stopReason = reply.stopReason ?? (content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn');
    const usage: Usage = {
      input_tokens: 100,
      output_tokens: 20,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...reply.usage,
    };
    const message = { id: `msg_fake_${++msgIds}`, type: 'message', role: 'assistant', model: mreq.model };
    if (!mreq.stream) {
      return sendJson(res, 200, { ...message, content, stop_reason: stopReason, stop_sequence: null, usage });
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': message.id });
    const event = (type: string, data: Record<string, unknown>): void => {
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    };
    event('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    content.forEach((c, index) => {
      if (c.type === 'text') {
        event('content_block_start', { index, content_block: { type: 'text', text: '' } });
        event('content_block_delta', { index, delta: { type: 'text_delta', text: c.text } });
      } else {
        event('content_block_start', { index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
        // Split the JSON in two so the client's partial-JSON accumulation is exercised.
        const json = JSON.stringify(c.input);
        const cut = Math.floor(json.length / 2);
        for (const part of [json.slice(0, cut), json.slice(cut)]) {
          event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
        }
      }
      event('content_block_stop', { index });
    });
    event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    event('message_stop', {});
    res.end();
  }

  const url = await listenLoopback(server);
  return { url, requests, turns, unexpected, close: () => closeServer(server) };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function sendError(res: ServerResponse, e: ErrorReply): void {
  const body = { type: 'error', error: { type: e.type, message: e.message }, request_id: 'req_fake' };
  sendJson(res, e.status, body, { 'x-should-retry': String(e.retry ?? false), 'request-id': 'req_fake' });
}
