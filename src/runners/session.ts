// The `session` runner (SPEC R2, L1, I5; issue 35 item 4, decision 0067): continues an existing vendor
// session — the Task's resume reference is the vendor's session id — by sending the frame as a message,
// then follows the session to its end (polling its state; a signed status webhook, where the vendor
// sends one, ends it sooner) and reports that end: completed, failed, waiting for a person, or not
// finished within the run's timeout. Outbound: https only (plain http to loopback), no redirects
// followed, every request timed out and every answer bounded.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Logger, Runner, RunnerCallbacks, RunnerWebhookAnswer, RunSpec } from '../app/ports.js';
import { outboundUrlProblem } from '../core/signed-post.js';
import {
  readPointer,
  runUsage,
  sessionRunEnd,
  sessionStateKind,
  spendAt,
  stateAt,
  unitsAt,
} from '../core/session-state.js';
import type { ProcessMark } from '../core/stranded-run.js';
import { RunnerError } from './errors.js';
import { markOf } from './process-mark.js';
import { fillBody, fillPath, type SessionVendor } from './session-vendors.js';

export const SESSION_DEFAULTS = {
  pollIntervalMs: 30_000,
  timeoutMs: 60 * 60_000,
  requestTimeoutMs: 15_000,
  /** A session's status is a few KiB; a larger answer is refused, not buffered. */
  maxResponseBytes: 1024 * 1024,
} as const;

export interface SessionRunnerOptions {
  vendor: SessionVendor;
  /** The vendor's API key (from a secret file; never logged). */
  apiKey: string;
  /** The vendor's webhook signing secret; null: its webhook is refused (404). */
  webhookSecret?: string | null;
  pollIntervalMs?: number;
  /** How long a run may follow its session before it ends failed. */
  timeoutMs?: number;
  requestTimeoutMs?: number;
  maxResponseBytes?: number;
  fetch?: typeof fetch;
  /** Milliseconds since an epoch, for the run's timeout; default Date.now. */
  now?: () => number;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /**
   * The mark a started run is stored with: the following lives in this fixloop process, so the mark
   * names it. A later fixloop finds it gone and ends the run as interrupted (offered again once, free;
   * core/stranded-run.ts) instead of leaving it running with nobody following. Default markOf(process.pid).
   */
  mark?: () => ProcessMark;
}

export interface SessionRunner extends Runner {
  readonly kind: 'session';
  /** A vendor's status webhook, its raw bytes and its headers (lower-case names). */
  receiveWebhook(raw: Buffer, headers: Readonly<Record<string, string | undefined>>): Promise<RunnerWebhookAnswer>;
  stopAll(): Promise<void>;
}

interface Follow {
  runId: number;
  sessionId: string;
  startedAt: number;
  callbacks: RunnerCallbacks;
  timer: NodeJS.Timeout | null;
  seenRunning: boolean;
  lastState: string | null;
  sameReads: number;
  lastError: string | null;
  spend: number | null;
  /** A cumulative spend (Devin's ACUs): the session's count before the message, and as last read. */
  unitsBefore: number | null;
  units: number | null;
  ended: boolean;
}

export function createSessionRunner(opts: SessionRunnerOptions): SessionRunner {
  const { vendor } = opts;
  const problem = outboundUrlProblem(vendor.baseUrl);
  if (problem) throw new Error(`session runner: baseUrl ${problem}`);
  if (!opts.apiKey) throw new Error('session runner: an API key is required');
  const base = vendor.baseUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;
  const pollMs = opts.pollIntervalMs ?? SESSION_DEFAULTS.pollIntervalMs;
  const timeoutMs = opts.timeoutMs ?? SESSION_DEFAULTS.timeoutMs;
  const requestTimeoutMs = opts.requestTimeoutMs ?? SESSION_DEFAULTS.requestTimeoutMs;
  const maxBytes = opts.maxResponseBytes ?? SESSION_DEFAULTS.maxResponseBytes;
  const authorization =
    vendor.auth === 'bearer'
      ? `Bearer ${opts.apiKey}`
      : `Basic ${Buffer.from(`${opts.apiKey}:`, 'utf8').toString('base64')}`;
  /** The sessions followed, by session id: a vendor's webhook names the session, not the run. */
  const follows = new Map<string, Follow>();
  let stopped = false;

  /** One request to the vendor: its status and its parsed JSON (null for an empty or non-JSON body). */
  async function call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), requestTimeoutMs);
    try {
      const res = await doFetch(`${base}${path}`, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        // A redirect would carry the key elsewhere: it is an answer like any other, and not followed.
        redirect: 'manual',
        signal: abort.signal,
      });
      const text = await boundedText(res, maxBytes, abort);
      let json: unknown = null;
      try {
        json = text === '' ? null : JSON.parse(text);
      } catch {
        json = null;
      }
      return { status: res.status, json: json ?? (text === '' ? null : { text: text.slice(0, 200) }) };
    } catch (err) {
      if (err instanceof RunnerError) throw err;
      if (abort.signal.aborted)
        throw new RunnerError('timeout', `${vendor.name} did not answer within ${requestTimeoutMs} ms`, { cause: err });
      throw new RunnerError('http_error', `could not reach ${vendor.name}: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  async function start(spec: RunSpec, callbacks: RunnerCallbacks): Promise<ProcessMark> {
    if (stopped) throw new RunnerError('http_error', 'the session runner is stopping');
    const sessionId = spec.resumeRef?.trim() ?? '';
    if (sessionId === '')
      throw new RunnerError(
        'no_session',
        `the Task has no resume reference: the session runner continues an existing ${vendor.name} session, so set the Task's resumeRef to its session id`,
      );
    if (follows.has(sessionId))
      throw new RunnerError(
        'http_error',
        `the ${vendor.name} session ${sessionId} is already followed for another run`,
      );
    // A session's cumulative usage counts every earlier run too: this run's share starts here.
    const unitsBefore = vendor.spend && 'cumulative' in vendor.spend ? await usageNow(sessionId) : null;
    const body = fillBody(vendor.messageBody, { prompt: spec.prompt, sessionId });
    const answer = await call('POST', fillPath(vendor.messagePath, sessionId), body);
    if (answer.status < 200 || answer.status > 299) {
      throw new RunnerError(
        'http_status',
        `${vendor.name} answered ${answer.status} to the message for session ${sessionId}: ${JSON.stringify(answer.json).slice(0, 200)}`,
        { status: answer.status },
      );
    }
    const follow: Follow = {
      runId: spec.runId,
      sessionId,
      startedAt: now(),
      callbacks,
      timer: null,
      seenRunning: false,
      lastState: null,
      sameReads: 0,
      lastError: null,
      spend: null,
      unitsBefore,
      units: null,
      ended: false,
    };
    follows.set(sessionId, follow);
    callbacks.onOutput(spec.runId, `[fixloop] sent the frame to the ${vendor.name} session ${sessionId}\n`);
    schedule(follow);
    return (opts.mark ?? (() => markOf(process.pid)))();
  }

  /** The session's cumulative usage as the vendor reports it now; null when it cannot be read. */
  async function usageNow(sessionId: string): Promise<number | null> {
    try {
      const a = await call('GET', fillPath(vendor.statusPath, sessionId));
      return a.status >= 200 && a.status <= 299 && vendor.spend ? unitsAt(a.json, vendor.spend.pointer) : null;
    } catch {
      return null;
    }
  }

  function schedule(f: Follow): void {
    if (stopped || f.ended) return;
    f.timer = setTimeout(() => void poll(f), pollMs);
    f.timer.unref();
  }

  async function poll(f: Follow): Promise<void> {
    f.timer = null;
    if (stopped || f.ended) return;
    try {
      const answer = await call('GET', fillPath(vendor.statusPath, f.sessionId));
      if (answer.status >= 200 && answer.status <= 299) {
        seen(f, stateAt(answer.json, vendor.statePointer), false);
        if (vendor.spend && 'cumulative' in vendor.spend)
          f.units = unitsAt(answer.json, vendor.spend.pointer) ?? f.units;
        else if (vendor.spend)
          f.spend = spendAt(answer.json, vendor.spend.pointer, vendor.spend.dollarsPerUnit) ?? f.spend;
        f.lastError = null;
      } else f.lastError = `${vendor.name} answered ${answer.status}`;
    } catch (err) {
      f.lastError = (err as Error).message;
    }
    if (f.lastError) opts.logger?.warn({ runId: f.runId, why: f.lastError }, 'session status not read');
    if (!decide(f, false)) schedule(f);
  }

  /** Records a state read (by poll, or from a webhook: a change, so fresh). */
  function seen(f: Follow, state: string | null, change: boolean): void {
    f.sameReads = state === f.lastState ? f.sameReads + 1 : 1;
    f.lastState = state;
    // A state that keeps the run running was read after the message: a terminal one read later is the session's answer.
    if (change || (state !== null && sessionStateKind(state, vendor.states) === 'running')) f.seenRunning = true;
  }

  /** Ends the run when the session as last seen says so; true when it ended. */
  function decide(f: Follow, fromWebhook: boolean): boolean {
    if (f.ended) return true;
    const end = sessionRunEnd(
      {
        vendor: vendor.name,
        sessionId: f.sessionId,
        state: f.lastState,
        fresh: f.seenRunning || fromWebhook,
        sameReads: f.sameReads,
        elapsedMs: now() - f.startedAt,
        timeoutMs,
      },
      vendor.states,
    );
    if (end.kind === 'running') return false;
    f.ended = true;
    if (f.timer) clearTimeout(f.timer);
    follows.delete(f.sessionId);
    const said =
      end.detail !== null && f.lastError !== null && f.lastState === null
        ? `${end.detail}; its status could not be read: ${f.lastError}`
        : end.detail;
    const usage =
      vendor.spend && 'cumulative' in vendor.spend
        ? runUsage(f.unitsBefore, f.units, vendor.spend.dollarsPerUnit, vendor.spend.unit, vendor.name)
        : null;
    // Units without a price are told in the run's log, never as the cause of its end.
    if (usage && usage.dollars === null) f.callbacks.onOutput(f.runId, `[fixloop] ${usage.words}\n`);
    const detail = said;
    const spend =
      usage?.dollars != null
        ? { dollars: usage.dollars, note: usage.words }
        : f.spend !== null
          ? { dollars: f.spend, note: `reported by ${vendor.name}` }
          : null;
    f.callbacks.onExit(f.runId, {
      state: end.state,
      exitCode: null,
      ...(detail !== null ? { detail } : {}),
      ...(end.needsPerson ? { needsPerson: true } : {}),
      ...(spend !== null ? { spend } : {}),
    });
    return true;
  }

  async function receiveWebhook(
    raw: Buffer,
    headers: Readonly<Record<string, string | undefined>>,
  ): Promise<RunnerWebhookAnswer> {
    const hook = vendor.webhook;
    if (!hook || !opts.webhookSecret) return { status: 404, body: 'no webhook is configured for this runner' };
    if (!signatureMatches(opts.webhookSecret, raw, headers[hook.signatureHeader]))
      return { status: 401, body: 'bad signature' };
    let doc: unknown;
    try {
      doc = JSON.parse(raw.toString('utf8'));
    } catch {
      return { status: 400, body: 'malformed JSON' };
    }
    const id = readPointer(doc, hook.idPointer);
    const f = typeof id === 'string' ? follows.get(id) : undefined;
    // Not followed here: another replica's run, or one that ended; its poll (or nobody) reads it.
    if (!f) return { status: 202, body: 'no run of this process follows that session' };
    seen(f, stateAt(doc, vendor.statePointer), true);
    decide(f, true);
    return { status: 200, body: 'ok' };
  }

  async function stopAll(): Promise<void> {
    // The sessions go on at the vendor: only the following stops (a later start does not resume it).
    stopped = true;
    for (const f of follows.values()) if (f.timer) clearTimeout(f.timer);
    follows.clear();
  }

  return { kind: 'session', start, receiveWebhook, stopAll };
}

/** `sha256=<hex>` of HMAC-SHA256 over the exact raw bytes, compared in constant time (both sides hashed to one length first). */
export function signatureMatches(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  const want = createHash('sha256').update(expected).digest();
  const got = createHash('sha256').update(header.trim()).digest();
  return timingSafeEqual(want, got);
}

/** The body as text, refused past `max` bytes (the request is aborted, not drained). */
async function boundedText(res: Response, max: number, abort: AbortController): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    abort.abort();
    throw new RunnerError('http_status', `the answer is ${declared} bytes, more than the ${max} read`, {
      status: res.status,
    });
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new RunnerError('http_status', `the answer is more than the ${max} bytes read`, { status: res.status });
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}
