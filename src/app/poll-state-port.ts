// What the poll keeps in the ledger to scale (SPEC N3, E1; decision 0031): slices of due Tasks
// claimed by the per-pull-request lease, so replicas split the work instead of doubling it, and
// what each pull request looked like when last read, so an unchanged one is not read deeper.
import type { Task } from '../core/types.js';

/** A Task leased to this replica for one tick, with the signature of its last reading (null: never read). */
export interface ClaimedPoll {
  task: Task;
  signature: string | null;
  /** The Task's row changed after its last read (a person's action, say): read it in full again. */
  movedSinceRead: boolean;
}

export interface PollStateStore {
  /**
   * Lease up to `limit` due Tasks until `leaseUntil`, oldest read first, by compare-and-set on the
   * per-pull-request lease (E1): open Tasks of open pull requests, not parked, whose lease has run
   * out, and that are not passing, or have a notice, or were last read at or before
   * `passingPolledBefore`. Two replicas never lease the same Task.
   */
  claimDuePolls(c: { limit: number; leaseUntil: string; passingPolledBefore: string }): Promise<ClaimedPoll[]>;
  /** The Task was read now; `signature` what it looked like (null: read it deeper next time). */
  markPolledSeen(taskId: number, signature: string | null): Promise<void>;
  /** These Tasks were glanced at now and showed nothing new: one write for them all, signatures kept. */
  markPolledUnchanged(taskIds: readonly number[]): Promise<void>;
}

/**
 * GitHub's answers to conditional requests, by request, shared by replicas and restarts (a 304 is
 * free of rate limit). `value` is the adapter's own JSON; `storedAt` when it was written.
 */
export interface EtagStore {
  getEtag(key: string): Promise<{ etag: string; value: string; storedAt: string } | null>;
  putEtag(key: string, etag: string, value: string): Promise<void>;
  /** Forget answers written before `storedBefore`; how many. */
  pruneEtags(storedBefore: string): Promise<number>;
}
