// Issue 36 item 1 (decision 0078): a red of a merge queue's commit names the pull requests the queue
// merged ahead of it, found by walking the commits the queue announced (core/queue-ahead.ts) through
// the stored events. A host that announces none leaves `others` unknown, and the frame says so.
import type { MergeQueueContext } from '../../core/merge-queue.js';
import { nextQueueStep, type QueueCommit } from '../../core/queue-ahead.js';
import type { EvaluateLedger } from './ports.js';

export type QueueAheadPort = { ledger: Pick<EvaluateLedger, 'queueCommit'> };

/** The queue of a red at `sha`, with the pull requests ahead of it when the queue's commits were kept. */
export async function withQueueAhead(
  port: QueueAheadPort,
  repository: string,
  sha: string,
  queue: MergeQueueContext,
): Promise<MergeQueueContext> {
  if (queue.others !== null) return queue;
  const chain: (QueueCommit | null)[] = [];
  for (;;) {
    const step = nextQueueStep(sha, chain);
    if (step.kind === 'done') return step.ahead === null ? queue : { ...queue, others: step.ahead };
    chain.push(await port.ledger.queueCommit(repository, step.sha));
  }
}
