// A scripted stand-in for the Gemini API (generativelanguage v1beta), enough for the real Gemini CLI
// (0.61) in headless mode: `:streamGenerateContent?alt=sse` answered from a script as SSE, any other
// `:generateContent` (the CLI's own side questions) with a small JSON text, `:countTokens` with a count,
// every request recorded. Point the CLI at it with GOOGLE_GEMINI_BASE_URL (and GEMINI_API_KEY).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GeminiPart {
  text?: string;
  functionCall?: { name: string; args: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
  [key: string]: unknown;
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** What the CLI sent to `:streamGenerateContent` (only the parts tests look at are typed). */
export interface GeminiRequest {
  model: string;
  contents: GeminiContent[];
  tools?: { functionDeclarations?: { name: string }[] }[];
  [key: string]: unknown;
}

/** One model turn: its parts, then usage (`usageMetadata`). */
export interface GeminiTurn {
  parts: GeminiPart[];
  usage?: { prompt?: number; candidates?: number; cached?: number };
}

export type GeminiScript = (req: GeminiRequest, index: number) => GeminiTurn;

export interface FakeGemini {
  /** For GOOGLE_GEMINI_BASE_URL. */
  readonly url: string;
  /** Bodies of `:streamGenerateContent` requests, in order. */
  turns(): GeminiRequest[];
  /** Every request's method, path and API key header, in order. */
  readonly requests: { method: string; path: string; apiKey: string | undefined }[];
  close(): Promise<void>;
}

export const text = (t: string): GeminiTurn => ({ parts: [{ text: t }] });
export const call = (name: string, args: Record<string, unknown> = {}): GeminiTurn => ({
  parts: [{ functionCall: { name, args } }],
});

/** Names of the functions offered to the model. */
export function functionNames(req: GeminiRequest): string[] {
  return (req.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
}

/** The last function response in the request (the tool's answer to the model's last call), as text. */
export function lastFunctionResponse(req: GeminiRequest): { name: string; output: string } | null {
  const last = req.contents.at(-1);
  const r = last?.parts.find((p) => p.functionResponse)?.functionResponse;
  return r ? { name: r.name, output: JSON.stringify(r.response) } : null;
}

/** Every text the user side of the conversation holds (the prompt and earlier turns). */
export function userTexts(req: GeminiRequest): string[] {
  return req.contents.filter((c) => c.role === 'user').flatMap((c) => c.parts.map((p) => p.text ?? ''));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeGemini(script: GeminiScript): Promise<FakeGemini> {
  const bodies: GeminiRequest[] = [];
  const requests: FakeGemini['requests'] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const raw = await readBody(req);
      const key = req.headers['x-goog-api-key'];
      requests.push({ method: req.method ?? 'GET', path, apiKey: Array.isArray(key) ? key[0] : key });
      const model = /\/models\/([^:/]+):/.exec(path)?.[1] ?? 'unknown';
      if (req.method === 'POST' && path.endsWith(':streamGenerateContent')) {
        const body = { ...(JSON.parse(raw) as GeminiRequest), model };
        const index = bodies.push(body) - 1;
        const t = script(body, index);
        const prompt = t.usage?.prompt ?? 1000;
        const candidates = t.usage?.candidates ?? 20;
        const chunk = {
          candidates: [{ content: { role: 'model', parts: t.parts }, finishReason: 'STOP', index: 0 }],
          usageMetadata: {
            promptTokenCount: prompt,
            candidatesTokenCount: candidates,
            cachedContentTokenCount: t.usage?.cached ?? 0,
            totalTokenCount: prompt + candidates,
          },
          modelVersion: model,
          responseId: `resp_${index}`,
        };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
        return;
      }
      if (req.method === 'POST' && path.endsWith(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 100 }));
        return;
      }
      if (req.method === 'POST' && path.endsWith(':generateContent')) {
        // The CLI's side questions (next speaker, routing, loop checks) expect a JSON answer.
        const answer = { reasoning: 'fake', next_speaker: 'user', model_choice: 'flash', complexity_score: 1 };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            candidates: [
              { content: { role: 'model', parts: [{ text: JSON.stringify(answer) }] }, finishReason: 'STOP' },
            ],
            usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
          }),
        );
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: `fake-gemini: no route ${req.method} ${path}` } }));
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 500, message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    turns: () => [...bodies],
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
