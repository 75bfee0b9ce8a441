// Where WAL checkpoints run: at quiet moments on the main connection; under load on the helper's
// connection, then on the main connection only once the WAL is long enough to be worth rewinding;
// nowhere (the backstop's job) for a while after the helper failed, which is reported and closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckpointHelper, CheckpointResult } from './checkpoint-helper.js';
import {
  HELPER_IDLE_LOOKS,
  HELPER_RETRY_MS,
  QUIET_UTILIZATION,
  REWIND_PAGES,
  checkpointPlace,
  createCheckpoints,
  shouldRewind,
  startCheckpoints,
} from './sqlite-checkpointer.js';

test('a quiet loop checkpoints on the main connection; a busy one on the helper, or not at all without one', () => {
  assert.equal(checkpointPlace(0, true), 'main');
  assert.equal(checkpointPlace(QUIET_UTILIZATION - 0.01, false), 'main');
  assert.equal(checkpointPlace(QUIET_UTILIZATION, true), 'helper');
  assert.equal(checkpointPlace(1, true), 'helper');
  assert.equal(checkpointPlace(QUIET_UTILIZATION, false), 'none');
});

test("the main connection finishes the helper's checkpoint only once the WAL is REWIND_PAGES long", () => {
  assert.equal(shouldRewind({ busy: 0, log: REWIND_PAGES - 1, checkpointed: REWIND_PAGES - 1 }), false);
  assert.equal(shouldRewind({ busy: 0, log: REWIND_PAGES, checkpointed: REWIND_PAGES }), true);
  assert.equal(shouldRewind({ busy: 0, log: 50, checkpointed: 10 }, 40), true);
  // The checkpoint lock was taken (the backstop was checkpointing): nothing was copied, nothing to finish.
  assert.equal(shouldRewind({ busy: 1, log: -1, checkpointed: -1 }, 0), false);
});

function fakes(answer: () => CheckpointResult | Error) {
  const calls = { main: 0, started: 0, helper: 0, closed: 0, errors: [] as string[] };
  let clock = 1_000_000;
  const ports = {
    async main() {
      calls.main++;
    },
    helper: (): CheckpointHelper => {
      calls.started++;
      return {
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
    },
    onError: (m: string) => void calls.errors.push(m),
    rewindPages: 100,
    now: () => clock,
  };
  return { calls, ports, advance: (ms: number) => void (clock += ms) };
}

const BUSY = 0.9;
const QUIET = 0.1;

test('an idle service checkpoints on its main connection and never starts the helper', async () => {
  const { calls, ports } = fakes(() => ({ busy: 0, log: 0, checkpointed: 0 }));
  const c = createCheckpoints(ports);
  await c.look(QUIET);
  await c.look(QUIET);
  await c.stop();
  assert.deepEqual(
    { main: calls.main, started: calls.started, closed: calls.closed },
    { main: 2, started: 0, closed: 0 },
  );
});

test('under load the helper checkpoints; the main connection steps in only for a WAL worth rewinding', async () => {
  let log = 50;
  const { calls, ports } = fakes(() => ({ busy: 0, log, checkpointed: log }));
  const c = createCheckpoints(ports);
  await c.look(BUSY);
  assert.deepEqual({ helper: calls.helper, main: calls.main }, { helper: 1, main: 0 }, 'a short WAL is left to grow');
  log = 150;
  await c.look(BUSY);
  assert.deepEqual(
    { helper: calls.helper, main: calls.main },
    { helper: 2, main: 1 },
    'then finished on the main connection',
  );
  assert.equal(calls.started, 1, 'one helper, kept between looks');
  await c.stop();
  assert.equal(calls.closed, 1, 'stopping closes the helper');
});

test('one checkpoint at a time: a look while one runs waits for it and starts nothing', async () => {
  let release!: () => void;
  const { calls, ports } = fakes(() => ({ busy: 0, log: 0, checkpointed: 0 }));
  const c = createCheckpoints({
    ...ports,
    main: () => new Promise<void>((r) => (release = () => (calls.main++, r()))),
  });
  const first = c.look(QUIET);
  const second = c.look(BUSY);
  release();
  await Promise.all([first, second]);
  assert.deepEqual({ main: calls.main, helper: calls.helper }, { main: 1, helper: 0 });
  await c.stop();
});

test('a helper that fails is reported, closed, and left alone for a while; then a new one is tried', async () => {
  let fail = true;
  const { calls, ports, advance } = fakes(() =>
    fail ? new Error('helper gone') : { busy: 0, log: 0, checkpointed: 0 },
  );
  const c = createCheckpoints(ports);
  await c.look(BUSY);
  assert.deepEqual(calls.errors, ['helper gone']);
  assert.equal(calls.closed, 1);
  await c.look(BUSY);
  assert.equal(calls.helper, 1, 'a busy loop leaves the WAL to the backstop meanwhile');
  await c.look(QUIET);
  assert.equal(calls.main, 1, 'quiet checkpoints go on');
  fail = false;
  advance(HELPER_RETRY_MS);
  await c.look(BUSY);
  assert.deepEqual(
    { started: calls.started, helper: calls.helper, errors: calls.errors.length },
    { started: 2, helper: 2, errors: 1 },
  );
  await c.stop();
});

test('a helper that cannot even start is reported once, not retried at every busy look', async () => {
  const { calls, ports, advance } = fakes(() => ({ busy: 0, log: 0, checkpointed: 0 }));
  let starts = 0;
  const c = createCheckpoints({
    ...ports,
    helper: () => {
      starts++;
      throw new Error('no thread for you');
    },
  });
  await c.look(BUSY);
  await c.look(BUSY);
  assert.deepEqual({ starts, errors: calls.errors }, { starts: 1, errors: ['no thread for you'] });
  advance(HELPER_RETRY_MS);
  await c.look(BUSY);
  assert.equal(starts, 2);
  await c.stop();
});

test('after a minute of quiet looks the helper is closed; the next burst starts a new one', async () => {
  const { calls, ports } = fakes(() => ({ busy: 0, log: 0, checkpointed: 0 }));
  const c = createCheckpoints(ports);
  await c.look(BUSY);
  for (let i = 0; i < HELPER_IDLE_LOOKS - 1; i++) await c.look(QUIET);
  await c.look(BUSY); // a busy look in between starts the count again
  for (let i = 0; i < HELPER_IDLE_LOOKS - 1; i++) await c.look(QUIET);
  assert.equal(calls.closed, 0);
  await c.look(QUIET);
  assert.equal(calls.closed, 1);
  await c.look(BUSY);
  assert.deepEqual({ started: calls.started, helper: calls.helper }, { started: 2, helper: 3 });
  await c.stop();
  assert.equal(calls.closed, 2);
});

test('without a helper (an in-memory database) a busy loop checkpoints nowhere', async () => {
  const { calls, ports } = fakes(() => ({ busy: 0, log: 0, checkpointed: 0 }));
  const c = createCheckpoints({ ...ports, helper: null });
  await c.look(BUSY);
  assert.deepEqual({ main: calls.main, started: calls.started }, { main: 0, started: 0 });
  await c.look(QUIET);
  assert.equal(calls.main, 1);
  await c.stop();
});

test('the timer looks by itself: an idle loop gets its checkpoint on the main connection', async () => {
  const { calls, ports } = fakes(() => ({ busy: 0, log: 0, checkpointed: 0 }));
  const c = startCheckpoints(ports);
  const end = Date.now() + 5000;
  while (calls.main === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  await c.stop();
  assert.ok(calls.main >= 1);
  assert.equal(calls.started, 0);
});
