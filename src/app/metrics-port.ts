// What the metrics (SPEC N2) need from the rest of fixloop, declared here so the ledger, the GitHub
// adapter, the HTTP edge and the poll can report without knowing prom-client exists: each side gets
// one small observer or reader, and main.ts wires them to src/metrics/.
import type { Outcome } from '../core/reasons.js';

/** The decision log's rows as committed (deliveries by outcome, refusals by reason). */
export interface DecisionObserver {
  committed(rows: readonly { outcome: Outcome; reason?: string | null }[]): void;
}

/**
 * The ledger's state as one scrape reads it: only the rows partial indexes hold (what is in flight
 * now), the open Inbox, and totals of the small per-stop and per-report tables, so every replica
 * reports the same numbers from the same database.
 */
export interface LedgerGauges {
  /** Attempts in flight (queued, running, awaiting_progress), by state. */
  attemptsInFlight: readonly { state: string; n: number }[];
  /** Attempts claimed or dispatching whose dispatch is not settled, by status. */
  attemptsUnsettled: readonly { status: string; n: number }[];
  /** Runs not finished (queued, running), by state. */
  runsUnfinished: readonly { state: string; n: number }[];
  /** Open Tasks whose loop is stopped with its notice filed: the Inbox a person works through. */
  openNotices: number;
  /** Notices ever filed, by stop reason. */
  stops: readonly { reason: string; n: number }[];
  /** What runs reported spending, in the configured currency. */
  spend: { model: number; sandbox: number };
}

export type ReadLedgerGauges = () => Promise<LedgerGauges>;
