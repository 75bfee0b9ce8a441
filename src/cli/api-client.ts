// The CLI's one way to call a running fixloop server (SPEC M1, M2): global fetch, the bearer token
// when there is one, a timeout, and "could not reach it" turned into a CliError (exit 1). Status
// codes are returned, not thrown: each command decides what a non-2xx means.
import { CliError } from './io.js';

const DEFAULT_TIMEOUT_MS = 30_000;

export interface ApiRequest {
  baseUrl: string;
  method: 'GET' | 'PUT' | 'POST';
  /** Absolute path on the server, e.g. `/api/tasks`. */
  path: string;
  token?: string | null;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent exactly as given (e.g. a signed webhook body); wins over `json`. */
  body?: Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface ApiResponse {
  status: number;
  statusText: string;
  ok: boolean;
  body: string;
}

export async function callApi(req: ApiRequest): Promise<ApiResponse> {
  const url = `${req.baseUrl.replace(/\/+$/, '')}${req.path}`;
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  let body: Uint8Array<ArrayBuffer> | string | undefined = req.body;
  if (body === undefined && req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers['content-type'] ??= 'application/json';
  }
  let res: Response;
  try {
    res = await (req.fetch ?? fetch)(url, {
      method: req.method,
      headers,
      body,
      signal: AbortSignal.timeout(req.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
  } catch (err) {
    throw new CliError(1, `cannot reach ${url}: ${describe(err)}`, { cause: err });
  }
  return { status: res.status, statusText: res.statusText, ok: res.ok, body: await res.text() };
}

/** fetch hides the useful part (ECONNREFUSED, a timeout) in `cause`. */
function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  return cause?.message ?? (err as Error).message;
}
