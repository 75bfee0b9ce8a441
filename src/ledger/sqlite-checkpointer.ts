// WAL checkpoints for the embedded SQLite database, off the event loop. SQLite's automatic checkpoint
// runs inside the commit that crosses the threshold: it copies megabytes into the database file and
// fsyncs it while every webhook ack waits (the benchmark's p99). Here a worker thread with its own
// connection checkpoints a little and often instead. Durability does not change: a checkpoint only
// moves pages that are already durable in the WAL (synchronous=NORMAL), and SQLite keeps it safe
// against concurrent writers. The main connection keeps a high automatic threshold as a backstop.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

/** WAL pages after which the main connection checkpoints by itself (the worker normally keeps it far below). */
export const BACKSTOP_PAGES = 16_384;

const INTERVAL_MS = 50;

// Plain CommonJS, evaluated in the worker (so no build step or loader is involved). A PASSIVE
// checkpoint never waits for readers or writers. It is repeated until it has caught up with the
// writer: the main connection restarts the WAL from its beginning (instead of growing it) only when
// a write finds every frame in it checkpointed.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
let timer = null;
function tick() {
  timer = null;
  try {
    // A pass reports the WAL as it found it: repeat until one finds nothing new since the last.
    let seen = -1;
    for (let i = 0; i < 16; i++) {
      const [r] = db.pragma('wal_checkpoint(PASSIVE)');
      if (!r || r.busy || r.log <= 0 || r.log === seen) break;
      seen = r.log;
    }
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
  timer = setTimeout(tick, workerData.intervalMs);
}
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  if (timer) clearTimeout(timer);
  db.close();
  parentPort.close();
});
tick();
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, onError: (message: string) => void): Checkpointer {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs: INTERVAL_MS },
    // Plain JavaScript: none of the parent's loaders (tsx under the tests). It holds no data, and a
    // small heap keeps the second isolate's memory small.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  worker.on('message', (m: { error?: string }) => m.error && onError(m.error));
  worker.on('error', (err) => onError(err.message));
  // Never what keeps the process alive.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}
