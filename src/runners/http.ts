// The `http` runner (SPEC L1): hands the run to an agent platform as a signed JSON POST. The
// platform reports the run's end later through fixloop's API, so this runner never calls onExit.
// Signature: `x-fixloop-signature-256: sha256=<hex HMAC-SHA256 of the exact body>`.
import type { Runner, RunnerCallbacks, RunSpec } from '../app/ports.js';
import { LOOPBACK_HOSTS, signBody } from '../core/signed-post.js';
import { RunnerError } from './errors.js';

const DEFAULT_HTTP_TIMEOUT_MS = 10_000;

export interface HttpRunnerOptions {
  /** https, or http only for a loopback host. */
  url: string;
  /** HMAC key for the signature header. */
  secret: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** Refuses a URL that would send the run token in clear text over a network. */
function checkRunnerUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`http runner: invalid url ${JSON.stringify(raw)}`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return url;
  throw new Error(
    `http runner: url must be https (plain http is allowed only for 127.0.0.1, ::1 or localhost): ${url.origin}`,
  );
}

export function createHttpRunner(opts: HttpRunnerOptions): Runner & { readonly kind: 'http' } {
  const url = checkRunnerUrl(opts.url);
  if (!opts.secret) throw new Error('http runner: `secret` is required');
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;

  async function start(spec: RunSpec, _callbacks: RunnerCallbacks): Promise<void> {
    const body = JSON.stringify({
      taskId: spec.taskId,
      runId: spec.runId,
      attemptId: spec.attemptId,
      repository: spec.repository,
      pullRequest: spec.pullRequest,
      branch: spec.branch,
      headSha: spec.headSha,
      resumeRef: spec.resumeRef,
      prompt: spec.prompt,
      apiUrl: spec.apiUrl,
      runToken: spec.runToken,
    });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const res = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-fixloop-signature-256': signBody(opts.secret, body),
          'x-fixloop-run-id': String(spec.runId),
        },
        body,
        // A redirect would carry the run token elsewhere; report it as a status instead.
        redirect: 'manual',
        signal: abort.signal,
      });
      const text = await res.text(); // drained so the connection is freed
      if (res.status < 200 || res.status > 299) {
        throw new RunnerError('http_status', `agent platform answered ${res.status}: ${text.slice(0, 200)}`, {
          status: res.status,
        });
      }
    } catch (err) {
      if (err instanceof RunnerError) throw err;
      if (abort.signal.aborted)
        throw new RunnerError('timeout', `agent platform did not answer within ${timeoutMs} ms`, { cause: err });
      throw new RunnerError('http_error', `could not reach the agent platform: ${(err as Error).message}`, {
        cause: err,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  return { kind: 'http', start };
}
