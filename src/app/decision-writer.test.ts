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

test('H1: rows and marks waiting ride in the next group commit, with no write of their own', async () => {
  const { writes, writer } = setup();
  writer.write(row(1));
  writer.evaluated(1);
  const carried: Array<{ rows: DecisionInput[]; evaluated: number[] }> = [];
  const answer = await writer.carry(async (rows, evaluated) => {
    carried.push({ rows, evaluated });
    return 'stored';
  });
  assert.equal(answer, 'stored', "the group commit's own answer comes back");
  await turn();
  await writer.drain();
  assert.deepEqual(carried, [{ rows: [row(1)], evaluated: [1] }]);
  assert.equal(writes.length, 0, 'nothing left for a write of its own');
});

test("while the writer's own write is in flight nothing is carried, so rows stay in order", async () => {
  const writes: DecisionInput[][] = [];
  let finish = () => {};
  const ledger = {
    recordDecisions: (rows: DecisionInput[]) =>
      new Promise<void>((resolve) => {
        writes.push(rows);
        finish = resolve;
      }),
  };
  const writer = createDecisionWriter(ledger, silent);
  writer.write(row(1));
  await turn(); // row 1 is being written
  writer.write(row(2));
  const carried: DecisionInput[][] = [];
  await writer.carry(async (rows) => void carried.push(rows));
  assert.deepEqual(carried, [[]], 'row 2 waits for the write before it');
  finish();
  await turn();
  await turn();
  finish();
  await writer.drain();
  assert.deepEqual(writes, [[row(1)], [row(2)]]);
});

test('drain waits for a carried commit; one that fails loses its rows like a failed write, and the writer goes on', async () => {
  const { writes, writer } = setup();
  writer.write(row(1));
  let fail = (_: Error) => {};
  const commit = writer.carry(() => new Promise<void>((_, reject) => (fail = reject)));
  let drained = false;
  const draining = writer.drain().then(() => (drained = true));
  await turn();
  assert.equal(drained, false, 'the carried rows are not written yet');
  fail(new Error('group commit failed'));
  await assert.rejects(commit, /group commit failed/, 'the group commit sees its own failure');
  await draining;
  writer.write(row(2));
  await turn();
  await writer.drain();
  assert.deepEqual(
    writes.map((w) => w.rows),
    [[row(2)]],
  );
});
