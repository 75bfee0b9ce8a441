// WAL checkpoints for the embedded SQLite database (decision 0016). SQLite's automatic checkpoint
// runs inside the commit that crosses its threshold: it copies the WAL into the database file and
// fsyncs both while every ack queued behind that commit waits. So fixloop checkpoints by itself,
// one look every 200 ms:
//   - the event loop was mostly idle since the last look: on the main connection (the pause harms
//     nobody, and a service that is mostly idle never starts a thread for it);
//   - it was busy: on the helper's connection, off the loop (checkpoint-helper.ts; the helper is
//     closed again after a minute of quiet looks). Once the WAL is REWIND_PAGES long, the main
//     connection then checkpoints what was committed meanwhile (10–20 ms, nearly all of it its two
//     fsyncs). That step is what lets the WAL start over from its beginning: SQLite rewinds it only
//     when a write begins with every frame copied, and only the main connection writes, so no
//     commit can slip in between.
// SQLite's automatic checkpoint stays as a backstop, past BACKSTOP_PAGES (the helper failed, or the
// load outran it). Durability does not change: every checkpoint, on either connection, fsyncs the
// WAL before copying from it and the database before the WAL can be written over.
import { performance } from 'node:perf_hooks';
import type { CheckpointHelper, CheckpointResult } from './checkpoint-helper.js';

/** WAL pages after which a commit checkpoints by itself (64 MB with 4 KiB pages). */
export const BACKSTOP_PAGES = 16_384;

/** WAL pages from which, under load, the main connection finishes the helper's checkpoint (32 MB). */
export const REWIND_PAGES = 8_192;

export const LOOK_EVERY_MS = 200;
/** Below this share of busy time since the last look, a checkpoint's pause harms nobody. */
export const QUIET_UTILIZATION = 0.5;
/** After the helper fails, how long a busy loop leaves the WAL to the backstop before a new helper is tried. */
export const HELPER_RETRY_MS = 60_000;
/** Quiet looks in a row (a minute) after which the helper is closed: its thread's memory goes back until the next burst. */
export const HELPER_IDLE_LOOKS = 300;

/** Where the next checkpoint runs, given how busy the loop was since the last look. */
export function checkpointPlace(busy: number, helperUsable: boolean): 'main' | 'helper' | 'none' {
  if (busy < QUIET_UTILIZATION) return 'main';
  // Without a helper, a busy loop is left alone; the backstop still bounds the WAL.
  return helperUsable ? 'helper' : 'none';
}

/** After the helper's checkpoint: whether the main connection finishes it so that the WAL rewinds. */
export function shouldRewind(r: CheckpointResult, rewindPages = REWIND_PAGES): boolean {
  // A checkpoint that found the lock taken reports busy and a log of -1: nothing to finish.
  return r.busy === 0 && r.log >= rewindPages;
}

export interface CheckpointPorts {
  /** One PASSIVE checkpoint on the main connection (never waits for readers or writers). */
  main(): Promise<void>;
  /** Starts a helper; called on the first busy look. null: no helper (an in-memory database). */
  helper: (() => CheckpointHelper) | null;
  onError(message: string): void;
  /** REWIND_PAGES unless given (tests). */
  rewindPages?: number;
  /** Milliseconds, for the retry after a failure (tests). */
  now?: () => number;
}

export interface Checkpoints {
  /** One look, given the loop's busy share since the last: runs the checkpoint it calls for, if none is running. */
  look(busy: number): Promise<void>;
  /** Waits for a checkpoint in flight, and closes the helper. */
  stop(): Promise<void>;
}

export function createCheckpoints(ports: CheckpointPorts): Checkpoints {
  const now = ports.now ?? Date.now;
  let running: Promise<void> | null = null;
  let helper: CheckpointHelper | null = null;
  let retryAt = 0;
  let quietLooks = 0;

  async function offTheLoop(): Promise<void> {
    let r: CheckpointResult;
    try {
      helper ??= ports.helper!();
      r = await helper.checkpoint();
    } catch (err) {
      // Closed and left alone for a while; the failure is reported by the caller.
      const failed = helper;
      helper = null;
      retryAt = now() + HELPER_RETRY_MS;
      await failed?.close().catch(() => undefined);
      throw err;
    }
    if (shouldRewind(r, ports.rewindPages)) await ports.main();
  }

  async function onTheLoop(): Promise<void> {
    await ports.main();
    if (helper && ++quietLooks >= HELPER_IDLE_LOOKS) {
      const idle = helper;
      helper = null;
      await idle.close();
    }
  }

  return {
    look(busy) {
      if (running) return running;
      const place = checkpointPlace(busy, ports.helper !== null && now() >= retryAt);
      if (place !== 'main') quietLooks = 0;
      if (place === 'none') return Promise.resolve();
      running = (place === 'main' ? onTheLoop() : offTheLoop())
        .catch((err: unknown) => ports.onError(err instanceof Error ? err.message : String(err)))
        .finally(() => {
          running = null;
        });
      return running;
    },
    async stop() {
      await running;
      await helper?.close();
      helper = null;
    },
  };
}

/** Looks every LOOK_EVERY_MS at how busy the event loop was since the last look. */
export function startCheckpoints(ports: CheckpointPorts): Pick<Checkpoints, 'stop'> {
  const checkpoints = createCheckpoints(ports);
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    void checkpoints.look(busy);
  }, LOOK_EVERY_MS);
  // Never what keeps the process alive.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await checkpoints.stop();
    },
  };
}
