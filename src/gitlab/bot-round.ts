// A review bot's round on GitLab (issue 36 item 6, decision 0077): GitLab keeps no review objects, only
// a reviewer's current state and the merge request's discussions, so a bot's round is what the bot
// says there now — its notes in unresolved threads (each under the thread's file) and its latest
// top-level note (its summary). A thread someone resolved is a finding no longer said; GitLab's
// system notes and everyone else's notes are not the bot's. Pure: discussions in, findings out.
import type { ReviewComment } from '../app/provider-port.js';

/** A note as the Discussions API lists it (doc/api/discussions.md), the fields read here. */
export interface DiscussionNoteJson {
  id: number;
  body: string | null;
  author: { id?: number; username: string } | null;
  system: boolean;
  /** Whether the note belongs to a thread that can be resolved (a diff note, a started thread). */
  resolvable?: boolean;
  resolved?: boolean;
  /** Where a diff note sits; null or absent for a note on the merge request as a whole. */
  position?: { new_path?: string | null; old_path?: string | null } | null;
}

/** One discussion: a thread, or a single top-level note (`individual_note`). */
export interface DiscussionJson {
  id: string;
  individual_note: boolean;
  notes: DiscussionNoteJson[] | null;
}

/**
 * The findings of the reviewer `reviewerId` (GitLab's user id, which is a review's id on GitLab:
 * classify.ts) as one round: the reviewer's non-system notes in every thread still unresolved, under
 * the thread's file ('' for a thread on the merge request), and its newest note that is no thread
 * (path ''). Order and repeats are left to the fingerprint (core/bot-findings.ts), which sorts and
 * de-duplicates.
 */
export function botRoundOf(discussions: readonly DiscussionJson[], reviewerId: number): ReviewComment[] {
  const findings: ReviewComment[] = [];
  let summary: DiscussionNoteJson | null = null;
  for (const d of discussions) {
    const notes = d.notes ?? [];
    const thread = notes.some((n) => n.resolvable === true);
    const open = notes.some((n) => n.resolvable === true && n.resolved !== true);
    const path = pathOf(notes);
    for (const n of notes) {
      if (n.system || n.author?.id !== reviewerId) continue;
      if (open) findings.push({ path, body: n.body ?? '' });
      // A top-level note that is no thread: the newest one is what the bot says of the whole now.
      else if (!thread && (summary === null || n.id > summary.id)) summary = n;
    }
  }
  if (summary !== null) findings.push({ path: '', body: summary.body ?? '' });
  return findings;
}

/** The file a thread is about: its first note's position (new path, else old for a deleted file). */
function pathOf(notes: readonly DiscussionNoteJson[]): string {
  const at = notes.find((n) => n.position)?.position;
  return at?.new_path ?? at?.old_path ?? '';
}
