// What a reviewer wrote, for a host that sends a review's state without its text (GitLab, decision
// 0079): the reviewer's own comments as the host lists them — the summary first, then each comment
// under the file it is about — as one body for the rejection and the agent's frame. Pure.
import { boundRejectionBody } from './bounded-text.js';

/** A reviewer's comment: on a file (`path`), or on the change as a whole (`path` empty). */
export interface ReviewerComment {
  path: string;
  body: string;
}

/** The comments as one text, bounded as any rejection's body; empty when the reviewer wrote nothing. */
export function reviewTextOf(comments: readonly ReviewerComment[]): string {
  const said = comments.filter((c) => c.body.trim() !== '');
  const whole = said.filter((c) => c.path === '').map((c) => c.body.trim());
  const onFiles = said.filter((c) => c.path !== '').map((c) => `On ${c.path}:\n${c.body.trim()}`);
  return boundRejectionBody([...whole, ...onFiles].join('\n\n'));
}
