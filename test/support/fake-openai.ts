// A scripted stand-in for the OpenAI Responses API, enough for the real Codex CLI (0.171) in `codex exec`
// mode: POST /v1/responses answered as SSE, every request recorded for assertions. Point Codex at it with
// a custom provider (see `codexProviderArgs`): it speaks plain HTTP and its retries can be turned off. The
// built-in `openai` provider (`-c openai_base_url=...`) tries a WebSocket first; the fake refuses the upgrade.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';

/** One item the fake model emits in a turn. */
export type FakeOutputItem =
  | { type: 'message'; text: string }
  /** A function tool call: `exec_command`, or an MCP tool (`namespace: 'mcp__<server>'`, `name: <tool>`). */
  | { type: 'function_call'; name: string; arguments: unknown; callId?: string; namespace?: string }
  /** A call of a freeform tool (`apply_patch`, or code mode's `exec`): raw text input, not JSON. */
  | { type: 'custom_tool_call'; name: string; input: string; callId?: string };

export interface FakeUsage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

/** A model turn: streamed as output items, then `response.completed` carrying `usage`. */
export interface FakeTurn {
  items: FakeOutputItem[];
  usage?: Partial<FakeUsage>;
}

/** A non-2xx answer with an OpenAI-style error body (e.g. 401 invalid_api_key). */
export interface FakeHttpError {
  status: number;
  error: { message: string; type?: string; code?: string | null };
}

export type FakeReply = FakeTurn | FakeHttpError;

/** What Codex sent to /v1/responses (only the parts tests look at are typed). */
export interface ResponsesRequest {
  model: string;
  stream?: boolean;
  instructions?: string;
  input: ResponseInputItem[];
  tools?: ResponseTool[];
  [key: string]: unknown;
}

export interface ResponseInputItem {
  type: string;
  role?: string;
  content?: { type: string; text?: string }[];
  name?: string;
  namespace?: string;
  call_id?: string;
  arguments?: string;
  /** function_call_output: a string, or content items. */
  output?: unknown;
  [key: string]: unknown;
}

export interface ResponseTool {
  type: string;
  name?: string;
  /** `namespace` tools group others (e.g. one namespace per MCP server). */
  tools?: ResponseTool[];
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}

/**
 * Decides each reply. An array is consumed in order (one entry per POST /v1/responses; running out
 * is a test bug and answers 500). A function sees the request and its 0-based index among them.
 */
export type FakeScript = FakeReply[] | ((req: ResponsesRequest, index: number) => FakeReply | Promise<FakeReply>);

export interface FakeOpenAI {
  /** Base URL including `/v1`, for a provider's `base_url`. */
  readonly url: string;
  readonly port: number;
  /** Every request, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Bodies of POST /v1/responses only, in order. */
  responses(): ResponsesRequest[];
  close(): Promise<void>;
}

export const say = (text: string): FakeOutputItem => ({ type: 'message', text });
export const callTool = (name: string, args: unknown, callId?: string): FakeOutputItem => ({
  type: 'function_call',
  name,
  arguments: args,
  ...(callId ? { callId } : {}),
});
/** A call of MCP server `server`'s tool: Codex offers each server's tools in namespace `mcp__<server>`. */
export const callMcp = (server: string, tool: string, args: unknown = {}, callId?: string): FakeOutputItem => ({
  type: 'function_call',
  name: tool,
  namespace: `mcp__${server}`,
  arguments: args,
  ...(callId ? { callId } : {}),
});
/** A shell command through Codex's `exec_command` tool (the tool non-code-mode models get). */
export const shell = (cmd: string, callId?: string): FakeOutputItem => callTool('exec_command', { cmd }, callId);
export const turn = (...items: FakeOutputItem[]): FakeTurn => ({ items });
export const httpError = (status: number, message: string, code: string | null = null): FakeHttpError => ({
  status,
  error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code },
});

/** Names of all tools offered, namespaces flattened as `namespace.tool`. */
export function toolNames(req: ResponsesRequest): string[] {
  const walk = (tools: ResponseTool[] | undefined, prefix: string): string[] =>
    (tools ?? []).flatMap((t) =>
      t.type === 'namespace' ? walk(t.tools, `${prefix}${t.name ?? ''}.`) : [`${prefix}${t.name ?? t.type}`],
    );
  // Code-mode models get their tools as an `additional_tools` input item instead of `tools`.
  const extra = req.input.flatMap((i) => (i.type === 'additional_tools' ? walk(i.tools as ResponseTool[], '') : []));
  return [...walk(req.tools, ''), ...extra];
}

/** The output Codex returned for a call (function_call_output / custom_tool_call_output), as text. */
export function toolOutput(req: ResponsesRequest, callId: string): string | undefined {
  // Some clients (OpenCode) send message items with no `type`.
  const item = req.input.find((i) => String(i.type ?? '').endsWith('_call_output') && i.call_id === callId);
  if (!item) return undefined;
  if (typeof item.output === 'string') return item.output;
  if (Array.isArray(item.output)) return item.output.map((c: { text?: string }) => c.text ?? '').join('');
  return JSON.stringify(item.output);
}

/** Text of every user message in the request (the prompt, AGENTS.md, environment context). */
export function userTexts(req: ResponsesRequest): string[] {
  return req.input
    .filter((i) => i.type === 'message' && i.role === 'user')
    .flatMap((i) => (i.content ?? []).map((c) => c.text ?? ''));
}

/**
 * `-c` arguments pointing `codex exec` at the fake as provider `fake`, with retries off so a failing
 * test ends fast. The key is read from `envKey` (Codex sends it as the bearer token).
 */
export function codexProviderArgs(url: string, opts: { envKey?: string; model?: string } = {}): string[] {
  const provider =
    `model_providers.fake={name="fake",base_url="${url}",wire_api="responses",` +
    `env_key="${opts.envKey ?? 'CODEX_API_KEY'}",request_max_retries=0,stream_max_retries=0}`;
  // A model name Codex has no built-in profile for gets plain function tools (exec_command, MCP tools)
  // rather than code mode's JavaScript `exec` tool.
  return ['-c', provider, '-c', 'model_provider="fake"', '-m', opts.model ?? 'fake-model'];
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function decode(raw: Buffer, encoding: string | undefined): string {
  if (!encoding || encoding === 'identity') return raw.toString('utf8');
  if (encoding === 'gzip') return gunzipSync(raw).toString('utf8');
  if (encoding === 'deflate') return inflateSync(raw).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(raw).toString('utf8');
  throw new Error(`fake-openai: unsupported content-encoding ${encoding}`);
}

function isError(reply: FakeReply): reply is FakeHttpError {
  return 'status' in reply;
}

function toWireItem(item: FakeOutputItem, id: string): Record<string, unknown> {
  switch (item.type) {
    case 'message':
      return {
        type: 'message',
        id,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: item.text, annotations: [] }],
      };
    case 'function_call':
      return {
        type: 'function_call',
        id,
        call_id: item.callId ?? `call_${id}`,
        name: item.name,
        ...(item.namespace ? { namespace: item.namespace } : {}),
        arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}),
        status: 'completed',
      };
    case 'custom_tool_call':
      return { type: 'custom_tool_call', id, call_id: item.callId ?? `call_${id}`, name: item.name, input: item.input };
  }
}

function writeTurn(res: ServerResponse, t: FakeTurn, responseId: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: Record<string, unknown>): void => {
    res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  send({ type: 'response.created', response: { id: responseId, status: 'in_progress', output: [] } });
  const output = t.items.map((item, i) => toWireItem(item, `${responseId}_${i}`));
  output.forEach((item, i) => {
    send({ type: 'response.output_item.added', output_index: i, item });
    if (item.type === 'message') {
      const text = (item.content as { text: string }[])[0]?.text ?? '';
      send({ type: 'response.output_text.delta', output_index: i, item_id: item.id, content_index: 0, delta: text });
    }
    send({ type: 'response.output_item.done', output_index: i, item });
  });
  const u = { input_tokens: 100, cached_input_tokens: 0, output_tokens: 10, reasoning_output_tokens: 0, ...t.usage };
  const usage = {
    input_tokens: u.input_tokens,
    input_tokens_details: { cached_tokens: u.cached_input_tokens },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_output_tokens },
    total_tokens: u.input_tokens + u.output_tokens,
  };
  send({ type: 'response.completed', response: { id: responseId, status: 'completed', output, usage } });
  res.end();
}

export interface FakeOpenAIOptions {
  /** When set, a request without `Authorization: Bearer <apiKey>` gets 401 invalid_api_key (and is recorded). */
  apiKey?: string;
}

export async function startFakeOpenAI(script: FakeScript, opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const bodies: ResponsesRequest[] = [];
  const queue = Array.isArray(script) ? [...script] : undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const text = decode(await readBody(req), req.headers['content-encoding']);
    const body: unknown = text ? JSON.parse(text) : undefined;
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });

    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      const { status, error } = httpError(401, 'Incorrect API key provided.', 'invalid_api_key');
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { param: null, ...error } }));
      return;
    }

    if (req.method === 'GET' && path.endsWith('/models')) {
      // Model discovery: an empty catalogue makes Codex keep its built-in defaults.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake-openai: no route ${req.method} ${path}`, type: 'not_found' } }));
      return;
    }
    const request = body as ResponsesRequest;
    const index = bodies.push(request) - 1;
    const reply = queue ? queue.shift() : await (script as Exclude<FakeScript, FakeReply[]>)(request, index);
    if (!reply) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake-openai: script has no reply for request ${index}` } }));
      return;
    }
    if (isError(reply)) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: null, code: null, param: null, ...reply.error } }));
      return;
    }
    writeTurn(res, reply, `resp_${index}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  // A WebSocket upgrade (built-in openai provider) is refused so Codex falls back to HTTP.
  server.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 426 Upgrade Required\r\nconnection: close\r\n\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    responses: () => [...bodies],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
