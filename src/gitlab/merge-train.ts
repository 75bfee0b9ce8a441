// Issue 36, decision 0075: why GitLab dropped a merge request from its merge train. GitLab's hooks do
// not say it; the merge request's system notes (the Notes API, `system: true`) do, in GitLab's words.
import type { QueueEjection } from '../core/merge-queue.js';

/** A system note about the merge train: a removal, or a merge request joining (or starting) one. */
export const TRAIN_NOTE = /\bmerge train\b/i;

/**
 * Why a merge train let a merge request go, from the latest system note GitLab wrote about the train
 * on it ("removed this merge request from the merge train[ because …]"): a removal, or null when the
 * latest says it joined a train again (its pipeline was only restarted behind another's removal) or
 * no note says anything. `said` is GitLab's own sentence, bounded, for the person's notice.
 */
export function ejectionOfWords(latest: string | null): { reason: QueueEjection; said: string } | null {
  if (latest === null) return null;
  const text = latest.replace(/\s+/g, ' ').trim();
  const removed = /\bremoved this merge request from the merge train\b(.*)$/i.exec(text);
  if (!removed) return null;
  const because = /\bbecause\b(.*)$/i.exec(removed[1] ?? '');
  const said = text.slice(0, 300);
  if (!because) return { reason: 'removed_by_person', said };
  const why = because[1]!.toLowerCase();
  if (/conflict/.test(why)) return { reason: 'conflict', said };
  if (/pipeline (did not succeed|failed)|job failed/.test(why)) return { reason: 'check_failed', said };
  if (/time(d)? ?out/.test(why)) return { reason: 'timeout', said };
  if (/merged/.test(why)) return { reason: 'merged', said };
  return { reason: 'unknown', said };
}
