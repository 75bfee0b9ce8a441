// The CI frame for a red of a merge queue's commit (issue 36 item 1): the same frame as any red, with
// the situation said first — the change passed on its own and fails only combined with the queue (its
// base and the changes merged ahead of it). The base's name is untrusted and only quoted. Pure.
import type { MergeQueueContext } from './merge-queue.js';
import { ciFailureFrame, type CiFailureFacts, type PromptFrame } from './prompt-frames.js';
import { quoteUntrusted } from './untrusted-fence.js';

/** At most this many other changes are named; a longer queue is counted. */
const OTHERS_NAMED = 10;

export function queueFailureFrame(f: CiFailureFacts & { queue: MergeQueueContext }): PromptFrame {
  const plain = ciFailureFrame(f);
  const [headline = '', ...rest] = plain.situation.split('\n');
  return Object.freeze({ ...plain, situation: [headline, queueSentence(f), ...rest].join('\n') });
}

/** The queue, in fixloop's own words: the base quoted, the other changes by their numbers. */
export function queueSentence(f: Pick<CiFailureFacts, 'words' | 'nonce'> & { queue: MergeQueueContext }): string {
  const { words, queue } = f;
  const noun = words.changeRequest;
  const others = (queue.others ?? []).filter((n) => Number.isSafeInteger(n) && n > 0 && n !== queue.pullRequest);
  const named = others.slice(0, OTHERS_NAMED).map((n) => `${words.referenceMark}${n}`);
  const more = others.length > named.length ? ` and ${others.length - named.length} more` : '';
  const ahead =
    queue.others === null
      ? `the ${words.changeRequests} ahead of it in the merge queue (fixloop does not know which)`
      : named.length === 0
        ? `no other ${noun} (it was first in the queue)`
        : `the ${words.changeRequests} ahead of it in the queue, ${named.join(', ')}${more}`;
  return (
    `This failure is of the merge queue's commit, not of the ${noun}'s head alone: the ${noun} fails only combined with the queue (base + these ${words.changeRequests}) — its base branch${queue.baseRef === null ? '' : ` ${quoteUntrusted(queue.baseRef, f.nonce)}`} merged with ${ahead}. ` +
    `The ${noun} was taken out of the queue. Fix it on the ${noun}'s own branch, on top of its head: read what the base and the ${words.changeRequests} merged with it changed, and make the ${noun} work combined with them.`
  );
}
