// AgentOps over fixloop's JSON API (SPEC M3, I2, K6, J1), for `fixloop mcp` started beside an agent:
// each call goes to `/api/run/*` with the run's own token as bearer, so the server — not this
// process — decides which run, attempt and pull request it is about. The API's refusals
// (`{ error: <AgentOpsError code>, message }`) come back as the same AgentOpsError.
import { z } from 'zod';
import { AgentOpsError, isAgentOpsErrorCode, type AgentOps, type AgentOpsErrorCode } from '../app/agent-ops-port.js';

export interface ApiOpsOptions {
  /** FIXLOOP_API_URL: fixloop's base URL (a path prefix is kept). */
  apiUrl: string;
  /** FIXLOOP_RUN_TOKEN */
  token: string;
  fetch?: typeof fetch;
  /** Per request; reading checks may fetch five job logs (default 120 s). */
  timeoutMs?: number;
}

const errorBody = z.object({ error: z.string(), message: z.string().optional() });
const outcomeBody = z.object({ attemptId: z.number(), state: z.string() });
const spendBody = z.object({ totalSpend: z.number() });

export function createApiOps(opts: ApiOpsOptions): AgentOps {
  const base = new URL(opts.apiUrl.endsWith('/') ? opts.apiUrl : `${opts.apiUrl}/`);
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new TypeError(`FIXLOOP_API_URL must be http(s), got ${base.protocol}`);
  const doFetch = opts.fetch ?? globalThis.fetch;
  const timeoutMs = opts.timeoutMs ?? 120_000;

  async function request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const url = new URL(path, base);
    const what = `${method} ${url.pathname}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${opts.token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new AgentOpsError(
        'unavailable',
        `cannot reach fixloop at ${base.origin} (${what}): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const text = await res.text().catch(() => '');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const parsed = errorBody.safeParse(json);
      if (parsed.success && isAgentOpsErrorCode(parsed.data.error)) {
        throw new AgentOpsError(parsed.data.error, parsed.data.message ?? `fixloop answered ${res.status} to ${what}`);
      }
      throw new AgentOpsError(codeOfStatus(res.status), `fixloop answered ${res.status} to ${what}`);
    }
    if (json === undefined) throw new AgentOpsError('unavailable', `fixloop answered ${what} with no JSON body`);
    return json;
  }

  function shaped<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new AgentOpsError('unavailable', `fixloop's answer to ${what} is not what this client expects`);
    return parsed.data;
  }

  return {
    checks: ({ failingOnly, logLines }) =>
      request(
        'GET',
        `api/run/checks?${new URLSearchParams({ failing: String(failingOnly), logLines: String(logLines) })}`,
      ),
    async reportOutcome({ outcome, reason }) {
      return shaped(
        outcomeBody,
        await request('POST', 'api/run/outcome', { outcome, ...(reason !== undefined ? { reason } : {}) }),
        'the outcome',
      );
    },
    async reportSpend({ model, sandbox, note }) {
      const body = {
        ...(model !== undefined ? { model } : {}),
        ...(sandbox !== undefined ? { sandbox } : {}),
        ...(note !== undefined ? { note } : {}),
      };
      return shaped(spendBody, await request('POST', 'api/run/spend', body), 'the spend');
    },
    loopState: () => request('GET', 'api/run/state'),
  };
}

/** For an answer without our error body (a proxy, an older server). */
function codeOfStatus(status: number): AgentOpsErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 400 || status === 422) return 'invalid';
  return 'unavailable';
}
