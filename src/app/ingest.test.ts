// The group commit and the decision writer (decision 0039): while a group commit is queued or in
// flight, the evaluation's decision rows wait for it and ride in it; once nothing is queued behind
// the last commit, the writer commits what is left on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createIngestor } from './ingest.js';
import { createDecisionWriter } from './decision-writer.js';
import type { DecisionInput, IncomingDelivery, StoreResult } from './ledger-port.js';
import type { Logger } from './ports.js';
import { builtInHosts } from '../../test/support/host-registry.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const turn = () => new Promise((r) => setImmediate(r));

function setup() {
  const commits: Array<{ rows: DecisionInput[]; evaluated: number[]; done: () => void }> = [];
  const ownWrites: Array<{ rows: DecisionInput[]; evaluated: number[] }> = [];
  const ledger = {
    storeDeliveries(batch: IncomingDelivery[], rows: DecisionInput[], evaluated: number[] = []) {
      return new Promise<StoreResult[]>((resolve) =>
        commits.push({ rows, evaluated, done: () => resolve(batch.map(() => ({ kind: 'duplicate' }))) }),
      );
    },
    async recordDecisions(rows: DecisionInput[], evaluated: number[] = []) {
      ownWrites.push({ rows, evaluated });
    },
  };
  const writer = createDecisionWriter(ledger, silent);
  const ingestor = createIngestor({
    ledger,
    logger: silent,
    queue: { push() {} },
    decisions: writer,
    hosts: builtInHosts(),
  });
  // A body that is not JSON is still recorded (its rejection row), so it takes a place in a group commit.
  const deliver = (n: number) => ingestor.ingest({ deliveryId: `d-${n}`, eventName: 'check_run', raw: '{' });
  // Let group commit `i` finish, and the turns after it run: its answers, the next batch, the writer.
  const finish = async (i: number, answered: Promise<unknown>) => {
    commits[i]!.done();
    await answered;
    await turn();
    await turn();
  };
  return { commits, ownWrites, writer, deliver, finish };
}

const row = (n: number): DecisionInput => ({ eventId: n, outcome: 'refused', reason: 'no_task' });
const evaluationRows = (rows: DecisionInput[]) => rows.filter((r) => r.outcome !== 'rejected');

test('H1: rows written while a group commit is in flight ride in the next one, with no commit of their own', async () => {
  const { commits, ownWrites, writer, deliver, finish } = setup();
  const first = deliver(1);
  await turn();
  assert.equal(commits.length, 1, 'the first group commit is in flight');
  writer.write(row(1));
  writer.evaluated(1);
  const second = deliver(2);
  await turn();
  await turn();
  assert.equal(ownWrites.length, 0, 'the rows wait for the group commit queued behind the one in flight');
  await finish(0, first);
  assert.equal(commits.length, 2, 'the queued delivery went in the next group commit');
  assert.deepEqual(evaluationRows(commits[1]!.rows), [row(1)]);
  assert.deepEqual(commits[1]!.evaluated, [1], 'the mark rides with its row');
  await finish(1, second);
  await writer.drain();
  assert.equal(ownWrites.length, 0, 'nothing was left for a write of its own');
});

test('once nothing is queued behind the last group commit, the writer commits on its own', async () => {
  const { commits, ownWrites, writer, deliver, finish } = setup();
  const first = deliver(1);
  await turn();
  writer.write(row(1));
  writer.evaluated(1);
  await turn();
  assert.equal(ownWrites.length, 0, 'held while the group commit is in flight');
  await finish(0, first);
  assert.deepEqual(ownWrites, [{ rows: [row(1)], evaluated: [1] }], 'written without waiting for another delivery');
  writer.write(row(2));
  await turn();
  assert.deepEqual(ownWrites[1], { rows: [row(2)], evaluated: [] }, 'an idle ingest holds nothing back');
  assert.equal(commits.length, 1);
});
