// The decision log's write-behind (decision 0005): rows written in one turn go out as one write,
// together with the events they finish; while the evaluation queue holds it, rows gather up to a
// batch; drain always writes everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecisionWriter } from './decision-writer.js';
import type { DecisionInput } from './ledger-port.js';
import type { Logger } from './ports.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const turn = () => new Promise((r) => setImmediate(r));

function setup() {
  const writes: Array<{ rows: DecisionInput[]; evaluated: number[] }> = [];
  const ledger = {
    async recordDecisions(rows: DecisionInput[], evaluated: number[] = []) {
      writes.push({ rows, evaluated });
    },
  };
  return { writes, writer: createDecisionWriter(ledger, silent) };
}

const row = (n: number): DecisionInput => ({ eventId: n, outcome: 'refused', reason: 'no_task' });

test('H1: the rows and marks of one turn go out as one write, marks with their rows', async () => {
  const { writes, writer } = setup();
  writer.write(row(1));
  writer.evaluated(1);
  writer.write(row(2));
  await turn();
  await writer.drain();
  assert.equal(writes.length, 1);
  assert.deepEqual(writes[0]!.evaluated, [1]);
  assert.equal(writes[0]!.rows.length, 2);
});

test('while held, rows gather across turns; release sends them in one write', async () => {
  const { writes, writer } = setup();
  const release = writer.hold();
  for (let i = 0; i < 10; i++) {
    writer.write(row(i));
    writer.evaluated(i);
    await turn();
  }
  assert.equal(writes.length, 0, 'nothing written while held and below the batch');
  release();
  await turn();
  await writer.drain();
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.rows.length, 10);
});

test('while held, a full batch goes out without waiting for the release', async () => {
  const { writes, writer } = setup();
  const release = writer.hold();
  for (let i = 0; i < 40; i++) {
    writer.write(row(i));
    writer.evaluated(i);
  }
  await turn();
  assert.equal(writes.length, 1, 'the batch of 64 rows and marks went out');
  release();
  await writer.drain();
});

test('drain writes everything even while held', async () => {
  const { writes, writer } = setup();
  writer.hold();
  writer.write(row(1));
  await writer.drain();
  assert.equal(writes.length, 1);
});
