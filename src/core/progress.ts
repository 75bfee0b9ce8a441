// Provider-visible progress after an attempt (SPEC I3): what changed on the pull request between a
// baseline snapshot (taken when the attempt was dispatched) and now. Only changes a fix can cause
// count: a new head, a re-run check, a changed review thread or review, a conflict resolved or
// created, entering or leaving the merge queue. Pure: two plain snapshots in, a list of kinds out.
// Without the poll (webhook-only installs) only the head is known: headProgress compares just that.

export const PROGRESS_KINDS = ['new_head', 'check_rerun', 'review_threads', 'conflict', 'merge_queue'] as const;
export type ProgressKind = (typeof PROGRESS_KINDS)[number];

/** One check run of the head, as far as progress needs it. */
export interface ProgressCheck {
  name: string;
  id: number;
  /** ISO-8601; null while a (re-)run is queued and has not started. */
  startedAt: string | null;
}

/** What the poll reads from the pull request; plain data, no client objects. */
export interface ProgressSnapshot {
  headSha: string;
  /** The check runs of `headSha` (re-runs share a name). */
  checks: readonly ProgressCheck[];
  /** Resolved and unresolved review-thread counts; null when they could not be read. */
  reviewThreads: { resolved: number; unresolved: number } | null;
  /** The newest review's id; null when there is none. */
  latestReviewId: number | null;
  /** GitHub's mergeable_state (clean, dirty, behind, blocked, unstable, has_hooks, draft, unknown); null when not read. */
  mergeableState: string | null;
  inMergeQueue: boolean;
}

/**
 * The merge states that are about the branch itself, which only a push (or a person) changes:
 * `dirty` = a conflict with the base, `behind` = out of date with the base. The others (blocked,
 * unstable, clean, has_hooks, draft) follow checks and reviews finishing, which happens without the
 * agent doing anything, so a move among them is not progress.
 */
const BRANCH_STATES: ReadonlySet<string> = new Set(['dirty', 'behind']);

/** I3: the kinds of progress seen, in PROGRESS_KINDS order; empty = no progress. */
export function detectProgress(baseline: ProgressSnapshot, now: ProgressSnapshot): ProgressKind[] {
  const out: ProgressKind[] = [];
  const sameHead = baseline.headSha.toLowerCase() === now.headSha.toLowerCase();
  if (!sameHead) out.push('new_head');
  // Checks of a new head are new runs, not re-runs: compare them only on the same head.
  if (sameHead && hasRerun(baseline.checks, now.checks)) out.push('check_rerun');
  if (reviewsChanged(baseline, now)) out.push('review_threads');
  if (conflictChanged(baseline.mergeableState, now.mergeableState)) out.push('conflict');
  if (baseline.inMergeQueue !== now.inMergeQueue) out.push('merge_queue');
  return out;
}

/**
 * I3 from the head alone (a webhook moved it, or no GitHub access to read more): a head other than
 * the one the attempt acted on is a new head. An unknown head on either side says nothing.
 */
export function headProgress(attemptHead: string | null, head: string | null): ProgressKind[] {
  if (!attemptHead || !head) return [];
  return attemptHead.toLowerCase() === head.toLowerCase() ? [] : ['new_head'];
}

/** A check present in both snapshots whose latest run is newer now (a new id or a later start). */
function hasRerun(before: readonly ProgressCheck[], after: readonly ProgressCheck[]): boolean {
  const was = latestByName(before);
  for (const [name, run] of latestByName(after)) {
    const old = was.get(name);
    if (old && isNewer(run, old)) return true;
  }
  return false;
}

function latestByName(checks: readonly ProgressCheck[]): Map<string, ProgressCheck> {
  const out = new Map<string, ProgressCheck>();
  for (const c of checks) {
    const seen = out.get(c.name);
    if (!seen || isNewer(c, seen)) out.set(c.name, c);
  }
  return out;
}

/**
 * A new execution: a higher id (GitHub Actions re-runs get a new id, and may not have started yet),
 * or the same id restarted later (some apps answer a re-request by restarting their check run).
 */
function isNewer(a: ProgressCheck, b: ProgressCheck): boolean {
  if (a.id > b.id) return true;
  const ta = a.startedAt === null ? Number.NaN : Date.parse(a.startedAt);
  const tb = b.startedAt === null ? Number.NaN : Date.parse(b.startedAt);
  return a.id === b.id && Number.isFinite(ta) && Number.isFinite(tb) && ta > tb;
}

function reviewsChanged(a: ProgressSnapshot, b: ProgressSnapshot): boolean {
  if (a.latestReviewId !== b.latestReviewId) return true;
  // Counts that could not be read on either side say nothing.
  if (a.reviewThreads === null || b.reviewThreads === null) return false;
  return (
    a.reviewThreads.resolved !== b.reviewThreads.resolved || a.reviewThreads.unresolved !== b.reviewThreads.unresolved
  );
}

/** Into or out of a conflict (or out-of-date) state, between two known states. */
function conflictChanged(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return false;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === 'unknown' || y === 'unknown' || x === y) return false; // unknown = GitHub is still computing
  return BRANCH_STATES.has(x) || BRANCH_STATES.has(y);
}
