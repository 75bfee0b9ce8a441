// What the ledger keeps of a red base told once (issue 36 item 4, decision 0069): its rounds and the
// pull requests each holds, and its deliveries to the notice sinks (decision 0075). Part of the Ledger
// (ledger-port.ts), declared apart to keep that file short.
import type { OutboxResult } from './outbox-port.js';

/** Issue 36 item 4: a base branch's red round, told once to the pull requests it holds (decision 0069). */
export interface BaseRed {
  id: number;
  repository: string;
  baseRef: string;
  round: number;
  /** The checks failing on the base that held pull requests, sorted. */
  checks: string[];
  baseSha: string | null;
  message: string;
  issueNumber: number | null;
  openedAt: string;
  closedAt: string | null;
  /** The pull requests it holds, by number, in the order they joined. */
  pullRequests: number[];
}

/** What a notice sink is told of a red base: its round opened, or its base healed (decision 0075). */
export type BaseRedEvent = 'opened' | 'healed';

/** A try's result, as the notice outbox's. */
export type BaseRedOutboxResult = OutboxResult;

/** One delivery of a red base's event to one configured notice sink, as claimed. */
export interface BaseRedDelivery {
  id: number;
  redId: number;
  event: BaseRedEvent;
  /** What the sink is sent, in the host's words, as said when the event happened. */
  message: string;
  sink: string;
  /** Tries finished so far. */
  attempts: number;
}

export interface BaseRedClaim {
  delivery: BaseRedDelivery;
  red: BaseRed;
  lease: string;
}

/**
 * The red bases' outbox (decision 0075), as the notice outbox (G1, P4): rows written in the
 * transaction that opens or closes a round, one per configured sink, claimed by a lease.
 */
export interface BaseRedOutboxStore {
  claimBaseRedOutbox(sink: string, limit: number, lease: string, leaseUntil: string): Promise<BaseRedClaim[]>;
  /** The try's result, written only while `lease` still holds the row. */
  settleBaseRedOutbox(id: number, lease: string, result: BaseRedOutboxResult): Promise<boolean>;
  /** Give the row back uncounted (shutdown cut the try short). */
  releaseBaseRedOutbox(id: number, lease: string): Promise<void>;
}

export interface BaseRedStore extends BaseRedOutboxStore {
  /**
   * The pull request (its Task) held by a red base joins the base's open round; when none is open it
   * opens the next, unique per (repository, base branch, round), so of any number of replicas one
   * files it (`filed`). The round's checks grow with the checks that held later pull requests.
   */
  joinBaseRed(input: {
    repository: string;
    baseRef: string;
    checks: readonly string[];
    baseSha: string | null;
    taskId: number;
    /** The notice, in the host's words: the round's message, and what the notice sinks are sent when it opens. */
    message: string;
  }): Promise<{ red: BaseRed; filed: boolean }>;
  /** Records the issue filed for the round (once: only where none is recorded yet). */
  setBaseRedIssue(id: number, issueNumber: number): Promise<boolean>;
  /** The rounds not closed yet, oldest first (bounded by `limit`). */
  openBaseReds(limit: number): Promise<BaseRed[]>;
  /**
   * Closes the round by compare-and-set: true for the one caller that closed it, which also queues
   * `healed` (what the notice sinks are sent) to each sink in the same transaction.
   */
  closeBaseRed(id: number, healed?: string): Promise<boolean>;
}
