// WAL checkpoints for the embedded SQLite database, at quiet moments. SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold (1000 pages): it copies the WAL into
// the database file and fsyncs it while every ack queued behind that commit waits (the benchmark's
// p99), and at full load it is a third of what a delivery costs SQLite. Instead, the WAL is
// checkpointed whenever the event loop was mostly idle since the last look, so a burst of
// deliveries is not interrupted; SQLite's own automatic checkpoint stays as a backstop, at a WAL
// large enough that only load that never lets up reaches it (then one longer pause, rarely).
// Durability does not change: a checkpoint only moves pages that are already durable in the WAL.
// (A worker thread with its own connection would take the work off the loop entirely, but a Node
// worker costs ~10 MB of resident memory, against a 150 MB budget.)
import { performance } from 'node:perf_hooks';

/** WAL pages after which a commit checkpoints by itself (64 MB with 4 KiB pages). */
export const BACKSTOP_PAGES = 16_384;

const LOOK_EVERY_MS = 200;
/** Below this share of busy time since the last look, a checkpoint's pause harms nobody. */
const QUIET_UTILIZATION = 0.5;

export interface Checkpointer {
  stop(): void;
}

/** `checkpoint` runs one PASSIVE checkpoint (never waits for readers or writers). */
export function startQuietCheckpoints(checkpoint: () => Promise<void>, onError: (message: string) => void): Checkpointer {
  let last = performance.eventLoopUtilization();
  let running = false;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (running || busy >= QUIET_UTILIZATION) return;
    running = true;
    checkpoint()
      .catch((err: unknown) => onError(err instanceof Error ? err.message : String(err)))
      .finally(() => {
        running = false;
      });
  }, LOOK_EVERY_MS);
  // Never what keeps the process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
