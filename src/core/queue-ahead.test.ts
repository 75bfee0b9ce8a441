// Decision 0078: the pull requests a merge queue merged ahead of a failing commit, by walking the
// commits the queue announced. The walk is driven here as the gate drives it, against a table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextQueueStep, QUEUE_AHEAD_MAX, type QueueCommit } from './queue-ahead.js';

let seq = 0;
/** A commit the queue said it built (in this order), merged into the base at `mergedSeq` when given. */
const c = (sha: string, parentSha: string, pullRequest: number, mergedSeq: number | null = null): QueueCommit => ({
  sha,
  parentSha,
  pullRequest,
  builtSeq: ++seq,
  mergedSeq,
});

/** Walks from `failing` through `known` (what the stored events hold), counting the reads. */
function walk(failing: string, known: QueueCommit[]): { ahead: number[] | null; reads: number } {
  const chain: (QueueCommit | null)[] = [];
  for (let reads = 0; ; reads++) {
    const step = nextQueueStep(failing, chain);
    if (step.kind === 'done') return { ahead: step.ahead, reads };
    assert.ok(reads <= QUEUE_AHEAD_MAX + 2, 'the walk ends');
    chain.push(known.find((k) => k.sha === step.sha) ?? null);
  }
}

const cases: { name: string; failing: string; known: QueueCommit[]; ahead: number[] | null; reads: number }[] = [
  { name: 'a commit the queue never announced: not known', failing: 'q3', known: [], ahead: null, reads: 1 },
  { name: 'first in the queue: built on the base', failing: 'q1', known: [c('q1', 'base', 7)], ahead: [], reads: 2 },
  {
    name: 'third in the queue: the two ahead, nearest first',
    failing: 'q3',
    known: [c('q1', 'base', 5), c('q2', 'q1', 6), c('q3', 'q2', 7)],
    ahead: [6, 5],
    reads: 4,
  },
  {
    name: 'a commit built behind it is not ahead of it',
    failing: 'q2',
    known: [c('q1', 'base', 5), c('q2', 'q1', 6), c('q3', 'q2', 7)],
    ahead: [5],
    reads: 3,
  },
  {
    name: 'a loop in what was announced ends the walk with what was found',
    failing: 'q2',
    known: [c('q1', 'q2', 5), c('q2', 'q1', 6)],
    ahead: [5],
    reads: 2,
  },
  {
    name: 'its own pull request built again ahead of itself: an older build, the walk ends there',
    failing: 'q2',
    known: [c('q0', 'base', 5), c('q1', 'q0', 6), c('q2', 'q1', 6)],
    ahead: [],
    reads: 2,
  },
  {
    name: 'a parent the queue had merged into the base before building the failing commit is the base',
    failing: 'q3',
    known: [c('q1', 'base', 5, 2.5), c('q2', 'q1', 6), c('q3', 'q2', 7)],
    ahead: [6],
    reads: 3,
  },
  {
    name: 'one merged only after the failing commit was built was still ahead of it, and is named',
    failing: 'q3',
    known: [c('q1', 'base', 5, 99), c('q2', 'q1', 6), c('q3', 'q2', 7)],
    ahead: [6, 5],
    reads: 4,
  },
  {
    name: 'a failing commit the queue only said it merged, never built: not known',
    failing: 'q1',
    known: [{ sha: 'q1', parentSha: 'base', pullRequest: 5, builtSeq: null, mergedSeq: 3 }],
    ahead: null,
    reads: 1,
  },
  {
    name: 'a pull request announced twice is named once',
    failing: 'q3',
    known: [c('q1', 'base', 5), c('q2', 'q1', 5), c('q3', 'q2', 7)],
    ahead: [5],
    reads: 4,
  },
];

for (const k of cases)
  test(k.name, () => {
    assert.deepEqual(walk(k.failing, k.known), { ahead: k.ahead, reads: k.reads });
  });

test(`a queue deeper than ${QUEUE_AHEAD_MAX} is named in part, after at most ${QUEUE_AHEAD_MAX + 1} reads`, () => {
  const depth = QUEUE_AHEAD_MAX * 2;
  const known = Array.from({ length: depth }, (_, i) => c(`q${i + 1}`, i === 0 ? 'base' : `q${i}`, 100 + i + 1));
  const { ahead, reads } = walk(`q${depth}`, known);
  assert.equal(reads, QUEUE_AHEAD_MAX + 1);
  assert.equal(ahead!.length, QUEUE_AHEAD_MAX);
  assert.equal(ahead![0], 100 + depth - 1, 'the nearest first');
});
