// WAL checkpoints for the embedded SQLite database (decision 0016). SQLite's automatic checkpoint
// runs inside the commit that crosses its threshold: it copies the WAL into the database file and
// fsyncs both while every ack queued behind that commit waits. So fixloop checkpoints by itself,
// one look every 200 ms:
//   - the event loop was mostly idle since the last look: on the main connection (the pause harms
//     nobody, and a service that is mostly idle never starts a thread for it);
//   - it was busy: on the helper's connection, off the loop (checkpoint-helper.ts). Once the WAL is
//     REWIND_PAGES long, the main connection then checkpoints what was committed meanwhile (a few
//     hundred pages; its two fsyncs take ~10 ms). That step is what lets the WAL start over from its
//     beginning: SQLite rewinds it only when a write begins with every frame copied, and only the main
//     connection writes, so no commit can slip in between.
// SQLite's automatic checkpoint stays as a backstop, past BACKSTOP_PAGES (the helper failed, or cannot
// keep up). Durability does not change: a checkpoint only moves pages that are already durable in the
// WAL, and fsyncs the database before the WAL is written over.
import { performance } from 'node:perf_hooks';
import type { CheckpointHelper, CheckpointResult } from './checkpoint-helper.js';

/** WAL pages after which a commit checkpoints by itself (64 MB with 4 KiB pages). */
export const BACKSTOP_PAGES = 16_384;

/** WAL pages from which, under load, the main connection finishes the helper's checkpoint (48 MB). */
export const REWIND_PAGES = 12_288;

export const LOOK_EVERY_MS = 200;
/** Below this share of busy time since the last look, a checkpoint's pause harms nobody. */
export const QUIET_UTILIZATION = 0.5;

/** Where the next checkpoint runs, given how busy the loop was since the last look. */
export function checkpointPlace(busy: number, helperUsable: boolean): 'main' | 'helper' | 'none' {
  if (busy < QUIET_UTILIZATION) return 'main';
  // Without a helper, a busy loop is left alone; the backstop still bounds the WAL.
  return helperUsable ? 'helper' : 'none';
}

/** After the helper's checkpoint: whether the main connection finishes it so that the WAL rewinds. */
export function shouldRewind(r: CheckpointResult, rewindPages = REWIND_PAGES): boolean {
  return r.log >= rewindPages;
}

export interface CheckpointPorts {
  /** One PASSIVE checkpoint on the main connection (never waits for readers or writers). */
  main(): Promise<void>;
  /** Starts the helper; called the first time the loop is too busy for a checkpoint of its own. null: no helper (in-memory database). */
  helper: (() => CheckpointHelper) | null;
  onError(message: string): void;
  /** REWIND_PAGES unless given (tests). */
  rewindPages?: number;
}

export interface Checkpointer {
  /** Stops looking, waits for a checkpoint in flight, and closes the helper. */
  stop(): Promise<void>;
}

export function startCheckpoints(ports: CheckpointPorts): Checkpointer {
  let last = performance.eventLoopUtilization();
  let running: Promise<void> | null = null;
  let helper: CheckpointHelper | null = null;
  let helperUsable = ports.helper !== null;

  async function offTheLoop(): Promise<void> {
    helper ??= ports.helper!();
    let r: CheckpointResult;
    try {
      r = await helper.checkpoint();
    } catch (err) {
      // Reported once; from here on a busy loop leaves the WAL to the backstop.
      helperUsable = false;
      throw err;
    }
    if (shouldRewind(r, ports.rewindPages)) await ports.main();
  }

  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (running) return;
    const place = checkpointPlace(busy, helperUsable);
    if (place === 'none') return;
    running = (place === 'main' ? ports.main() : offTheLoop())
      .catch((err: unknown) => ports.onError(err instanceof Error ? err.message : String(err)))
      .finally(() => {
        running = null;
      });
  }, LOOK_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await helper?.close();
    },
  };
}
