// A second SQLite connection, on a thread of its own, that runs PASSIVE WAL checkpoints off the
// event loop (sqlite-checkpointer.ts decides when). A checkpoint copies WAL pages into the database
// file and fsyncs both files; on the loop, every ack queued behind it waited for that (decision
// 0016). It never changes what a reader sees, so the main connection's page cache stays valid.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What `PRAGMA wal_checkpoint` reports: whether it was blocked, frames in the WAL, frames now in the database. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface CheckpointHelper {
  /** One PASSIVE checkpoint on the helper's connection; one at a time. */
  checkpoint(): Promise<CheckpointResult>;
  /** Closes the helper's connection and ends its thread. */
  close(): Promise<void>;
}

/** Why the helper could not answer: its checkpoint failed, its thread failed or ended, it was closed, or one was already running. */
export type CheckpointHelperFailure = 'checkpoint_failed' | 'thread_failed' | 'thread_exited' | 'closed' | 'busy';

export class CheckpointHelperError extends Error {
  constructor(
    readonly reason: CheckpointHelperFailure,
    message: string,
  ) {
    super(message);
  }
}

// The thread's code is a string (eval) so that it runs the same from dist/ and from the TypeScript
// sources under tsx, with no module of its own to resolve. It opens the file the main connection
// created (never a new one) and does nothing but checkpoint. synchronous=NORMAL, as on the main
// connection: a checkpoint then fsyncs the WAL before copying and the database after.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ ok: true, result: db.pragma('wal_checkpoint(PASSIVE)')[0] });
  } catch (e) {
    parentPort.postMessage({ ok: false, message: String((e && e.message) || e) });
  }
});
`;

type Reply = { ok: true; result: CheckpointResult } | { ok: false; message: string };

/** `path`: the database file the main connection opened, as an absolute path. */
export function startCheckpointHelper(path: string): CheckpointHelper {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // The thread holds a connection and nothing else: a small heap keeps its memory small.
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { path, driver },
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
  });
  // Never what keeps an idle process alive; a reply awaited does (ref'd while one is asked for).
  worker.unref();
  let waiting: { resolve(r: CheckpointResult): void; reject(e: Error): void } | null = null;
  let ended: CheckpointHelperError | null = null;
  let closing = false;
  const end = (e: CheckpointHelperError) => {
    ended ??= e;
    waiting?.reject(ended);
    waiting = null;
  };
  worker.on('message', (m: Reply) => {
    const w = waiting;
    waiting = null;
    // Once closing, the thread stays ref'd until it exits: close() is awaiting that.
    if (!closing) worker.unref();
    if (m.ok) w?.resolve(m.result);
    else
      w?.reject(
        new CheckpointHelperError('checkpoint_failed', `checkpoint on the helper's connection failed: ${m.message}`),
      );
  });
  worker.on('error', (e) => end(new CheckpointHelperError('thread_failed', `checkpoint helper failed: ${e.message}`)));
  worker.on('exit', () =>
    end(
      closing
        ? new CheckpointHelperError('closed', 'checkpoint helper closed')
        : new CheckpointHelperError('thread_exited', 'checkpoint helper exited'),
    ),
  );
  return {
    checkpoint() {
      if (ended) return Promise.reject(ended);
      if (waiting)
        return Promise.reject(new CheckpointHelperError('busy', 'a checkpoint is already running on the helper'));
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        worker.ref();
        worker.postMessage('checkpoint');
      });
    },
    async close() {
      if (ended) return;
      closing = true;
      const exited = new Promise<void>((r) => worker.once('exit', () => r()));
      worker.ref();
      // Sent after any checkpoint in flight, so the thread finishes it before closing.
      worker.postMessage('close');
      await exited;
    },
  };
}
