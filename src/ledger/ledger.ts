// The Kysely ledger: fixloop's durable state on SQLite or PostgreSQL, one code path for both,
// assembled from one adapter per aggregate (deliveries, tasks, runs, attempts, rejections,
// notices, the stop flag). Every exactly-once rule is a constraint or a compare-and-set there,
// never process memory (N1, decision 0003): events.identity (A3), attempts(task_id, coordinate)
// (C2), attempts_one_in_flight (K7), runs.attempt_id, the notice marker CAS (G1), the head CAS (B1),
// reruns(task_id, head_sha, ordinal) (issue 17).
import { sql } from 'kysely';
import type { Clock } from '../app/ports.js';
import type { Ledger } from '../app/ledger-port.js';
import type { DecisionObserver } from '../app/metrics-port.js';
import type { Db } from './db.js';
import { createAttemptStore } from './attempts.js';
import { createBoardStore } from './board.js';
import { createDeliveryLog } from './deliveries.js';
import { createNoticeStore } from './notices.js';
import { createOutboxStore } from './outbox.js';
import { createRejectionStore } from './rejections.js';
import { createRerunStore } from './reruns.js';
import { createBaseHoldStore } from './base-holds.js';
import { createBaseRedStore } from './base-reds.js';
import { createRunStore } from './runs.js';
import { createStopFlag } from './stop-flag.js';
import { createTaskStore } from './tasks.js';
import { createPollStateStore } from './poll-state.js';

/**
 * `decisions` hears every decision row once committed (the metrics' counters, N2). `noticeSinks` are
 * the names of the configured notice sinks: each filed notice queues one delivery per name.
 */
export function createLedger(
  db: Db,
  clock: Clock,
  decisions?: DecisionObserver,
  noticeSinks: readonly string[] = [],
): Ledger {
  const k = db.kysely;
  const now = () => clock.now().toISOString();
  return {
    now,
    ...createDeliveryLog(k, now, decisions),
    ...createTaskStore(k, now),
    ...createRunStore(k, now),
    ...createAttemptStore(k, now, noticeSinks),
    ...createRejectionStore(k, now),
    ...createNoticeStore(k, now, noticeSinks),
    ...createOutboxStore(k, now),
    ...createRerunStore(k, now),
    ...createBaseHoldStore(k, now),
    ...createBaseRedStore(k, now, noticeSinks),
    ...createStopFlag(k),
    ...createBoardStore(k),
    ...createPollStateStore(k, now, db.dialect),
  };
}

/** A trivial query that proves the database answers (readiness). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db.kysely);
}
