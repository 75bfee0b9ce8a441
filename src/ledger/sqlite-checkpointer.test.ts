// Where WAL checkpoints run: at quiet moments on the main connection; under load on the helper's
// connection, then on the main connection only once the WAL is long enough to be worth rewinding;
// nowhere (the backstop's job) once the helper has failed, which is reported once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckpointHelper, CheckpointResult } from './checkpoint-helper.js';
import { LOOK_EVERY_MS, QUIET_UTILIZATION, REWIND_PAGES, checkpointPlace, shouldRewind, startCheckpoints } from './sqlite-checkpointer.js';

test('a quiet loop checkpoints on the main connection; a busy one on the helper, or not at all without one', () => {
  assert.equal(checkpointPlace(0, true), 'main');
  assert.equal(checkpointPlace(QUIET_UTILIZATION - 0.01, false), 'main');
  assert.equal(checkpointPlace(QUIET_UTILIZATION, true), 'helper');
  assert.equal(checkpointPlace(1, true), 'helper');
  assert.equal(checkpointPlace(QUIET_UTILIZATION, false), 'none');
});

test('the main connection finishes the helper\'s checkpoint only once the WAL is REWIND_PAGES long', () => {
  assert.equal(shouldRewind({ busy: 0, log: REWIND_PAGES - 1, checkpointed: REWIND_PAGES - 1 }), false);
  assert.equal(shouldRewind({ busy: 0, log: REWIND_PAGES, checkpointed: REWIND_PAGES }), true);
  assert.equal(shouldRewind({ busy: 0, log: 50, checkpointed: 10 }, 40), true);
});

/** Keeps the event loop busy, as a burst of deliveries does, past two looks. */
function spin(ms = 2 * LOOK_EVERY_MS + 50): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

async function until(what: string, f: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function fakes(answer: () => CheckpointResult | Error) {
  const calls = { main: 0, started: 0, helper: 0, closed: 0, errors: [] as string[] };
  const helper: CheckpointHelper = {
    async checkpoint() {
      calls.helper++;
      const a = answer();
      if (a instanceof Error) throw a;
      return a;
    },
    async close() {
      calls.closed++;
    },
  };
  const ports = {
    async main() {
      calls.main++;
    },
    helper: () => {
      calls.started++;
      return helper;
    },
    onError: (m: string) => void calls.errors.push(m),
    rewindPages: 100,
  };
  return { calls, ports };
}

test('an idle service checkpoints on its main connection and never starts the helper', async () => {
  const { calls, ports } = fakes(() => ({ busy: 0, log: 0, checkpointed: 0 }));
  const c = startCheckpoints(ports);
  await until('a quiet checkpoint', () => calls.main > 0);
  await c.stop();
  assert.equal(calls.started, 0);
  assert.equal(calls.closed, 0);
});

test('under load the helper checkpoints; the main connection steps in only for a WAL worth rewinding', async () => {
  let log = 50;
  const { calls, ports } = fakes(() => ({ busy: 0, log, checkpointed: log }));
  const c = startCheckpoints(ports);
  await sleep(LOOK_EVERY_MS + 20); // a quiet look first, on the main connection
  const quiet = calls.main;
  spin();
  await until('the helper', () => calls.helper === 1);
  await sleep(20);
  assert.equal(calls.started, 1);
  assert.equal(calls.main, quiet, 'a short WAL is left to grow');

  log = 150;
  spin();
  await until('a second helper checkpoint', () => calls.helper === 2);
  await until('the main connection', () => calls.main === quiet + 1);
  assert.equal(calls.started, 1, 'one helper for the life of the database');
  await c.stop();
  assert.equal(calls.closed, 1, 'stopping closes the helper');
});

test('a helper that fails is reported once and not asked again; the loop carries on', async () => {
  const { calls, ports } = fakes(() => new Error('helper gone'));
  const c = startCheckpoints(ports);
  spin();
  await until('the failure report', () => calls.errors.length === 1);
  spin();
  await sleep(LOOK_EVERY_MS + 50);
  assert.equal(calls.helper, 1);
  assert.deepEqual(calls.errors, ['helper gone']);
  await until('a quiet checkpoint still on the main connection', () => calls.main > 0);
  await c.stop();
});

test('without a helper (an in-memory database) a busy loop checkpoints nowhere', async () => {
  const { calls, ports } = fakes(() => ({ busy: 0, log: 0, checkpointed: 0 }));
  const c = startCheckpoints({ ...ports, helper: null });
  spin();
  await sleep(30);
  assert.equal(calls.main, 0);
  assert.equal(calls.started, 0);
  await c.stop();
});
