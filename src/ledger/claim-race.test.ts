// C2 and K7 where replicas really race: three processes, each with its own connection, claim an
// attempt on the same Task at the same instant, round after round, on both databases. The database
// decides: the unique (task, coordinate) index lets one claim of a coordinate win (the others are
// `taken`), and the partial unique index lets one attempt of a pull request be in flight (the others,
// claiming other heads, are `in_flight`). The calls' times are kept, so the test also shows that the
// claims did overlap — that it was a race, not calls one after another.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, DATABASE_KINDS } from '../../test/support/databases.js';
import type { ClaimAnswer, ClaimRound } from '../../test/support/claim-worker.js';
import { openDatabase } from './db.js';
import { migrateToLatest } from './migrations.js';
import { createLedger } from './ledger.js';

const WORKER = fileURLToPath(new URL('../../test/support/claim-worker.ts', import.meta.url));
const WORKERS = 3;
const ROUNDS = 50;
/** How far ahead each round's start is set, so every worker has its message before the instant. */
const LEAD_MS = 50;

/** A worker process on `url`, kept in `workers` (to be stopped whatever happens), once it has opened its handle. */
async function startWorker(url: string, n: number, workers: ChildProcess[]): Promise<void> {
  const child = fork(WORKER, {
    execArgv: ['--import', import.meta.resolve('tsx')],
    env: { PATH: process.env.PATH ?? '', CLAIM_DATABASE_URL: url, CLAIM_WORKER: String(n) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  workers.push(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`claim worker ${n} was not ready within 60 s`)), 60_000);
    child.once('message', (m) => (m === 'ready' ? (clearTimeout(timer), resolve()) : undefined));
    child.once('exit', (code) => reject(new Error(`claim worker ${n} exited (${code}) before it was ready`)));
  });
}

/** Every worker's answer for one round; fails, naming the silent workers, after 20 s. */
function answers(workers: ChildProcess[], round: ClaimRound): Promise<ClaimAnswer[]> {
  return new Promise((resolve, reject) => {
    const got: ClaimAnswer[] = [];
    const listeners = workers.map((w) => {
      const on = (m: ClaimAnswer) => {
        if (m.round !== round.round) return;
        got.push(m);
        if (got.length === workers.length) {
          clearTimeout(timer);
          workers.forEach((x, i) => x.off('message', listeners[i]!));
          resolve(got);
        }
      };
      w.on('message', on);
      return on;
    });
    const timer = setTimeout(() => {
      const silent = workers.map((_, i) => i).filter((i) => !got.some((a) => a.worker === i));
      reject(new Error(`round ${round.round}: no answer within 20 s from worker(s) ${silent.join(', ')}`));
    }, 20_000);
    for (const w of workers) w.send(round);
  });
}

for (const kind of DATABASE_KINDS) {
  describe(`racing claims from separate processes (${kind})`, () => {
    test(
      `C2/K7: ${WORKERS} replicas claim one Task at the same instant, ${ROUNDS} rounds: exactly one wins each, one row`,
      { timeout: 120_000 },
      async (t) => {
        const tdb = await createTestDatabase(kind);
        const db = openDatabase(tdb.url);
        const workers: ChildProcess[] = [];
        try {
          await migrateToLatest(db.kysely, db.dialect);
          const ledger = createLedger(db, { now: () => new Date() });
          const tasks: number[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            const created = await ledger.createTask({
              work: 'shop',
              repository: 'acme/shop',
              pullRequest: round + 1,
              branch: `agent/fix-${round}`,
              resumeRef: null,
            });
            assert.ok('task' in created);
            tasks.push(created.task.id);
          }
          await Promise.all(Array.from({ length: WORKERS }, (_, n) => startWorker(tdb.url, n, workers)));

          let overlapped = 0;
          for (let round = 0; round < ROUNDS; round++) {
            // Even rounds: every replica saw the same red head (C2). Odd rounds: each saw another head of
            // the same pull request (K7: one attempt in flight).
            const sameHead = round % 2 === 0;
            const got = await answers(workers, {
              round,
              taskId: tasks[round]!,
              head: sameHead ? `head-${round}` : null,
              at: Date.now() + LEAD_MS,
            });
            const kinds = got.map((a) => a.kind).sort();
            const loser = sameHead ? 'taken' : 'in_flight';
            assert.deepEqual(
              kinds,
              ['claimed', ...Array(WORKERS - 1).fill(loser)].sort(),
              `round ${round} (${sameHead ? 'one head' : 'several heads'}): ${JSON.stringify(got)}`,
            );
            const rows = await ledger.listAttempts(tasks[round]!);
            assert.equal(rows.length, 1, `round ${round}: the losers wrote nothing`);
            assert.equal(await ledger.countAttempts(tasks[round]!), 1);
            const winner = got.find((a) => a.kind === 'claimed')!;
            assert.equal(rows[0]!.fingerprint, `fp-${winner.worker}`, `round ${round}: the row is the winner's`);
            assert.equal(winner.counted, 1, `round ${round}: the count re-read in the claim (C3) saw no loser`);
            // A race: some call began before another had ended.
            const byStart = [...got].sort((a, b) => a.began - b.began);
            if (byStart.some((a, i) => i > 0 && a.began < byStart[i - 1]!.ended)) overlapped++;
          }
          t.diagnostic(`the claims overlapped in ${overlapped} of ${ROUNDS} rounds`);
          // Were the claims concurrent at all? Calls one after another would prove nothing about the race.
          assert.ok(overlapped >= ROUNDS / 5, `the claims overlapped in ${overlapped} of ${ROUNDS} rounds`);
        } finally {
          // Asked to stop; one still running 5 s later (a claim stuck in a lock) is killed.
          for (const w of workers) if (w.connected) w.send('stop');
          await Promise.all(
            workers.map((w) => {
              if (w.exitCode !== null || w.signalCode !== null) return undefined;
              const kill = setTimeout(() => w.kill('SIGKILL'), 5_000);
              return new Promise((r) => w.once('exit', () => (clearTimeout(kill), r(undefined))));
            }),
          );
          await db.close();
          await tdb.drop();
        }
      },
    );
  });
}
