// The notice outbox's port (G1, P4; decision 0025): the rows a notice's transaction writes for each
// configured sink, leased and settled by the worker that sends them. Re-exported by ledger-port.ts.
import type { Notice } from '../core/types.js';

export const OUTBOX_STATES = ['pending', 'delivered', 'failed'] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

/** One delivery of a notice to one configured sink (G1, P4; decision 0025). */
export interface OutboxDelivery {
  id: number;
  noticeId: number;
  taskId: number;
  repository: string;
  pullRequest: number;
  sink: string;
  state: OutboxState;
  /** Tries finished so far (a try cut short by a crash or shutdown is not counted). */
  attempts: number;
  nextAt: string;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

/** A claimed delivery: the row, the notice it carries, and the lease it is held under. */
export interface OutboxClaim {
  delivery: OutboxDelivery;
  notice: Notice;
  lease: string;
}

export type OutboxResult =
  { kind: 'delivered' } | { kind: 'retry'; at: string; error: string } | { kind: 'failed'; error: string };

/**
 * The notice outbox (G1, P4): the rows fileNotice writes in the notice's transaction, claimed by a
 * lease (compare-and-set, so one replica at a time holds a row) and settled by whoever holds it.
 */
export interface OutboxStore {
  /** Up to `limit` due pending rows of `sink`, each leased to `lease` until `leaseUntil`. */
  claimOutbox(sink: string, limit: number, lease: string, leaseUntil: string): Promise<OutboxClaim[]>;
  /** The try's result, written only while `lease` still holds the row; false when it no longer does. */
  settleOutbox(id: number, lease: string, result: OutboxResult): Promise<boolean>;
  /** Give the row back uncounted (shutdown cut the try short), so the next worker need not wait out the lease. */
  releaseOutbox(id: number, lease: string): Promise<void>;
  /** Pending and failed deliveries, newest first (GET /api/outbox). */
  listOutbox(filter: { states: readonly OutboxState[]; limit: number }): Promise<OutboxDelivery[]>;
  /** How many deliveries are pending: cheap, for a gauge. */
  outboxDepth(): Promise<number>;
  /** A person sends a given-up delivery again: `failed` → `pending` with its tries reset; null when none. */
  resendOutbox(id: number): Promise<{ resent: boolean; delivery: OutboxDelivery } | null>;
}
