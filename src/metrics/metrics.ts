// Prometheus metrics (SPEC N2), one registry per fixloop instance (no prom-client global state).
// Two kinds of series: what this process saw happen, counted as it happens (decision rows
// committed, webhook acknowledgements, poll ticks, GitHub requests), and the ledger's state, read
// from the database when scraped (ledger-series.ts), so every replica reports the same truth.
// Observers are synchronous and never throw: they sit on the acknowledgement's hot path.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DecisionObserver, ReadLedgerGauges } from '../app/metrics-port.js';
import { OUTCOMES, REFUSALS } from '../core/reasons.js';
import { createLedgerSeries } from './ledger-series.js';

/** Why a dashboard sign-in was refused: the token was wrong, or the client had sent too many wrong ones. */
export type SignInRefusal = 'failed' | 'throttled';

/** A source of the notice outbox's depth: a number as of now, or a read made at each scrape. */
export type OutboxDepthSource = number | (() => number | Promise<number>);

export interface Metrics {
  /** Hears every decision row once committed (createLedger's observer). */
  readonly decisions: DecisionObserver;
  /** Hears every HTTP response from GitHub (null status: no response, a network failure). */
  readonly github: {
    response(status: number | null, rateLimit: { resource: string; remaining: number; limit?: number } | null): void;
  };
  /** A webhook request answered, `seconds` after its handler started. */
  webhookAck(seconds: number, status: number): void;
  /** A poll tick ended after `seconds`. */
  pollTick(seconds: number): void;
  /** A poll tick stopped short to stay within GitHub's rate limit (N3). */
  pollDeferred(): void;
  /** A kind of write to the host refused for lack of permission began to be held back (issue 31; decision 0047). */
  hostWriteBackedOff(kind: 'commit_status'): void;
  /** A dashboard sign-in refused: a wrong token, or a client throttled after too many (A1, issue 31). */
  signInRefused(why: SignInRefusal): void;
  /** Where the ledger-derived series are read at scrape time (main.ts: readLedgerGauges on the database). */
  ledgerFrom(read: ReadLedgerGauges): void;
  /** The notice outbox (P4) reports its depth here; until it does, fixloop_outbox_depth reads 0. */
  setOutboxDepth(source: OutboxDepthSource): void;
  /** The exposition text, every source read now. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsOptions {
  /** A read at scrape time failed: the scrape still answers, without those series. */
  onError?: (err: unknown, where: 'ledger' | 'outbox') => void;
  /** Node's own process metrics (memory, event loop lag, GC), prefixed fixloop_; default true. */
  processMetrics?: boolean;
}

/** From 1 ms (an ack is a group commit away) to 10 s, GitHub's own limit for a delivery. */
const ACK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** A tick is a walk over the due PRs: milliseconds when nothing changed, minutes when GitHub is slow. */
const TICK_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

function statusClass(status: number | null): string {
  return status === null ? 'network_error' : `${Math.floor(status / 100)}xx`;
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (opts.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'fixloop_' });

  const deliveries = new Counter({
    name: 'fixloop_deliveries_total',
    help: 'Decision log rows committed by this process, by outcome: what became of each delivery (stored, duplicate, dropped, ignored, rejected) and of its evaluation (refused, claimed, dispatched, reported, noticed, failed).',
    labelNames: ['outcome'],
    registers,
  });
  const refusals = new Counter({
    name: 'fixloop_refusals_total',
    help: 'Decision log rows with outcome "refused" committed by this process, by reason (src/core/reasons.ts).',
    labelNames: ['reason'],
    registers,
  });
  const ack = new Histogram({
    name: 'fixloop_webhook_ack_seconds',
    help: 'Time from a webhook request reaching its handler to its answer being sent, by HTTP status.',
    labelNames: ['status'],
    buckets: ACK_BUCKETS,
    registers,
  });
  const tick = new Histogram({
    name: 'fixloop_poll_tick_seconds',
    help: 'Duration of a poll tick of this process (E1): every due pull request read and evaluated.',
    buckets: TICK_BUCKETS,
    registers,
  });
  const githubRequests = new Counter({
    name: 'fixloop_github_requests_total',
    help: 'HTTP requests this process sent to the GitHub API, retries included, by status class (2xx … 5xx, network_error).',
    labelNames: ['status_class'],
    registers,
  });
  const rateLimitLimit = new Gauge({
    name: 'fixloop_github_rate_limit_limit',
    help: 'x-ratelimit-limit of the last GitHub API response that carried it, by x-ratelimit-resource: the window fixloop_github_rate_limit_remaining counts down (N3).',
    labelNames: ['resource'],
    registers,
  });
  const pollDeferred = new Counter({
    name: 'fixloop_poll_deferred_total',
    help: 'Poll ticks that stopped before reading every due pull request, to stay within the GitHub rate limit (N3); the rest were read on later ticks.',
    registers,
  });
  const rateLimit = new Gauge({
    name: 'fixloop_github_rate_limit_remaining',
    help: 'x-ratelimit-remaining of the last GitHub API response that carried it, by x-ratelimit-resource (absent until one did).',
    labelNames: ['resource'],
    registers,
  });
  const signInFailures = new Counter({
    name: 'fixloop_sign_in_failures_total',
    help: 'Dashboard sign-ins refused because the token was not the API token.',
    registers,
  });
  const signInThrottled = new Counter({
    name: 'fixloop_sign_in_throttled_total',
    help: 'Dashboard sign-ins refused without looking at the token, because the client had sent too many wrong ones within a minute.',
    registers,
  });
  const hostWriteBackoffs = new Counter({
    name: 'fixloop_host_write_backoffs_total',
    help: 'Times a kind of write to GitHub or GitLab was refused for lack of permission (403/404) and is held back, counted once per episode (decision 0047).',
    labelNames: ['kind'],
    registers,
  });
  hostWriteBackoffs.inc({ kind: 'commit_status' }, 0);
  let outbox: OutboxDepthSource = 0;
  const outboxDepth = new Gauge({
    name: 'fixloop_outbox_depth',
    help: 'Notices waiting in the outbox to be sent to their sinks (P4); 0 while no outbox reports.',
    registers,
  });
  const ledger = createLedgerSeries(registers);
  let readLedger: ReadLedgerGauges | null = null;

  // Every known label value starts at 0, so a series exists before its first event and rate() works.
  for (const outcome of OUTCOMES) deliveries.inc({ outcome }, 0);
  for (const reason of new Set(REFUSALS)) refusals.inc({ reason }, 0);
  for (const status_class of ['2xx', '3xx', '4xx', '5xx']) githubRequests.inc({ status_class }, 0);

  return {
    decisions: {
      committed(rows) {
        for (const r of rows) {
          deliveries.inc({ outcome: r.outcome });
          if (r.outcome === 'refused' && r.reason) refusals.inc({ reason: r.reason });
        }
      },
    },
    github: {
      response(status, limit) {
        githubRequests.inc({ status_class: statusClass(status) });
        if (limit !== null) rateLimit.set({ resource: limit.resource }, limit.remaining);
        if (limit?.limit !== undefined) rateLimitLimit.set({ resource: limit.resource }, limit.limit);
      },
    },
    webhookAck(seconds, status) {
      ack.observe({ status: String(status) }, seconds);
    },
    pollDeferred() {
      pollDeferred.inc();
    },
    hostWriteBackedOff(kind) {
      hostWriteBackoffs.inc({ kind });
    },
    signInRefused(why) {
      (why === 'failed' ? signInFailures : signInThrottled).inc();
    },
    pollTick(seconds) {
      tick.observe(seconds);
    },
    ledgerFrom(read) {
      readLedger = read;
    },
    setOutboxDepth(source) {
      outbox = source;
    },
    async scrape() {
      const [ledgerRead, depth] = await Promise.allSettled([
        readLedger ? readLedger() : Promise.resolve(null),
        Promise.resolve(typeof outbox === 'number' ? outbox : outbox()),
      ]);
      if (ledgerRead.status === 'fulfilled') ledger.set(ledgerRead.value);
      else {
        ledger.set(null);
        opts.onError?.(ledgerRead.reason, 'ledger');
      }
      if (depth.status === 'fulfilled') outboxDepth.set(depth.value);
      else {
        outboxDepth.reset();
        opts.onError?.(depth.reason, 'outbox');
      }
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
