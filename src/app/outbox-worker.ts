// The notice outbox's delivery worker (SPEC G1, P4, N1; decision 0025): every few seconds it claims
// the due deliveries of each sink by lease, POSTs them, and settles each — delivered on 2xx, else
// retried on the core's backoff, or given up and `failed` after the configured tries. It runs apart
// from ingest and evaluation (nothing there awaits it), and each sink has its own slots, so a slow
// or failing sink holds up only its own rows. At-least-once: every try carries the same key. A red
// base's notice (opened, healed) goes the same way, from its own outbox (decision 0075).
import type { Clock, Logger, Random } from './ports.js';
import type { OutboxClaim, OutboxResult, OutboxStore } from './ledger-port.js';
import type { BaseRedClaim, BaseRedOutboxStore } from './base-red-port.js';
import type { NoticeSink, SendResult } from './notice-sink-port.js';
import { afterFailure, fractionOf, type OutboxSchedule } from '../core/outbox-schedule.js';
import { idempotencyKey } from '../core/notice-payload.js';
import { baseRedIdempotencyKey } from '../core/base-red-payload.js';
import { LOG_EVENTS } from '../core/events.js';

/** How many deliveries of one sink are in the air at once, at most. */
const DEFAULT_PER_SINK = 4;

export interface OutboxWorkerDeps {
  /**
   * The claim, the settle, and the give-back on shutdown: all the worker writes. With the red bases'
   * outbox too (the ledger has it), each sink that can be told of a red base is (decision 0075).
   */
  outbox: Pick<OutboxStore, 'claimOutbox' | 'settleOutbox' | 'releaseOutbox'> & Partial<BaseRedOutboxStore>;
  sinks: readonly NoticeSink[];
  schedule: OutboxSchedule;
  clock: Clock;
  random: Random;
  logger: Logger;
  /** The claim pass's period (ms). */
  everyMs: number;
  /** How long a claim holds a row (ms): longer than a try can take, so a live try is never taken over. */
  leaseMs: number;
  perSink?: number;
}

export interface OutboxWorker {
  start(): void;
  /** One claim pass, resolving once the tries it started are settled (tests drive it). */
  tick(): Promise<void>;
  /** Stops claiming, cuts tries short and gives their rows back uncounted. */
  stop(): Promise<void>;
}

export function createOutboxWorker(deps: OutboxWorkerDeps): OutboxWorker {
  const perSink = deps.perSink ?? DEFAULT_PER_SINK;
  const inFlight = new Map<string, number>(deps.sinks.map((s) => [s.name, 0]));
  const running = new Set<Promise<void>>();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  /** One try of one row, whichever outbox it is in: a Task's notice, or a red base's event (decision 0075). */
  interface Try {
    attempts: number;
    where: Record<string, unknown>;
    send(signal: AbortSignal): Promise<SendResult>;
    settle(result: OutboxResult): Promise<unknown>;
    release(): Promise<unknown>;
  }

  async function settle(t: Try, result: SendResult): Promise<void> {
    if (result.kind === 'delivered') {
      await t.settle({ kind: 'delivered' });
      deps.logger.info({ ...t.where, attempts: t.attempts + 1 }, LOG_EVENTS.NOTICE_DELIVERED);
      return;
    }
    const attempts = t.attempts + 1;
    const next = afterFailure(deps.schedule, attempts, fractionOf(deps.random.token(6)), result.retryAfterMs);
    if (next.kind === 'retry') {
      const at = new Date(deps.clock.now().getTime() + next.delayMs).toISOString();
      await t.settle({ kind: 'retry', at, error: result.error });
      deps.logger.warn({ ...t.where, attempts, error: result.error, retryAt: at }, LOG_EVENTS.NOTICE_DELIVERY_FAILED);
    } else {
      await t.settle({ kind: 'failed', error: result.error });
      deps.logger.error({ ...t.where, attempts, error: result.error }, LOG_EVENTS.NOTICE_DELIVERY_GAVE_UP);
    }
  }

  async function deliver(t: Try): Promise<void> {
    let result: SendResult;
    try {
      result = await t.send(abort.signal);
    } catch (err) {
      if (abort.signal.aborted) {
        // Shutdown cut the try short: the next worker may take the row at once, and the try is not counted.
        await t.release().catch(() => {});
        return;
      }
      result = { kind: 'failed', error: `sink failed: ${(err as Error).message}`, retryAfterMs: null };
    }
    try {
      await settle(t, result);
    } catch (err) {
      // The lease runs out and the row is tried again: at-least-once, the key makes it harmless.
      deps.logger.error({ err, ...t.where }, 'notice outbox: settle failed');
    }
  }

  const noticeTry = (claim: OutboxClaim, sink: NoticeSink): Try => {
    const { delivery, lease } = claim;
    return {
      attempts: delivery.attempts,
      where: { sink: sink.name, noticeId: delivery.noticeId, taskId: delivery.taskId, deliveryId: delivery.id },
      send: (signal) => sink.send(claim.notice, idempotencyKey(claim.notice.id, sink.name), signal),
      settle: (result) => deps.outbox.settleOutbox(delivery.id, lease, result),
      release: () => deps.outbox.releaseOutbox(delivery.id, lease),
    };
  };

  const baseRedTry = (claim: BaseRedClaim, sink: NoticeSink, store: BaseRedOutboxStore): Try => {
    const { delivery, lease } = claim;
    return {
      attempts: delivery.attempts,
      where: { sink: sink.name, baseRedId: delivery.redId, event: delivery.event, baseRedDeliveryId: delivery.id },
      send: (signal) =>
        sink.sendBaseRed!(
          delivery.event,
          claim.red,
          delivery.message,
          baseRedIdempotencyKey(delivery.redId, delivery.event, sink.name),
          signal,
        ),
      settle: (result) => store.settleBaseRedOutbox(delivery.id, lease, result),
      release: () => store.releaseBaseRedOutbox(delivery.id, lease),
    };
  };

  /** The red bases' outbox where the ledger keeps one (decision 0075). */
  const baseRedStore = (): BaseRedOutboxStore | null => {
    const o = deps.outbox;
    return o.claimBaseRedOutbox && o.settleBaseRedOutbox && o.releaseBaseRedOutbox ? (o as BaseRedOutboxStore) : null;
  };

  /** Up to `room` due rows of `sink`, from the notices first and then the red bases. */
  async function claimTries(sink: NoticeSink, room: number, leaseUntil: string): Promise<Try[]> {
    const tries = (await deps.outbox.claimOutbox(sink.name, room, deps.random.token(12), leaseUntil)).map((c) =>
      noticeTry(c, sink),
    );
    const store = baseRedStore();
    if (store && sink.sendBaseRed && tries.length < room) {
      const reds = await store.claimBaseRedOutbox(sink.name, room - tries.length, deps.random.token(12), leaseUntil);
      tries.push(...reds.map((c) => baseRedTry(c, sink, store)));
    }
    return tries;
  }

  /** Claims what each sink has room for and starts the tries; resolves with them. */
  async function claimPass(): Promise<Promise<void>[]> {
    const started: Promise<void>[] = [];
    for (const sink of deps.sinks) {
      const room = perSink - (inFlight.get(sink.name) ?? 0);
      if (stopped || room <= 0) continue;
      const now = deps.clock.now().getTime();
      let claims: Try[];
      try {
        claims = await claimTries(sink, room, new Date(now + deps.leaseMs).toISOString());
      } catch (err) {
        deps.logger.warn({ err, sink: sink.name }, 'notice outbox: claim failed; trying again on the next pass');
        continue;
      }
      for (const claim of claims) {
        inFlight.set(sink.name, (inFlight.get(sink.name) ?? 0) + 1);
        const p = deliver(claim).finally(() => {
          inFlight.set(sink.name, (inFlight.get(sink.name) ?? 1) - 1);
          running.delete(p);
        });
        running.add(p);
        started.push(p);
      }
    }
    return started;
  }

  let passing: Promise<Promise<void>[]> | null = null;
  const onePass = () => (passing ??= claimPass().finally(() => (passing = null)));

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void onePass().finally(schedule);
    }, deps.everyMs);
    timer.unref?.();
  }

  return {
    start() {
      if (deps.sinks.length > 0 && timer === null && !stopped) schedule();
    },
    async tick() {
      await Promise.all(await onePass());
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await passing;
      abort.abort();
      await Promise.all([...running]);
    },
  };
}
