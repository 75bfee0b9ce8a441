// A replica's claim, in a process of its own (src/ledger/claim-race.test.ts): it opens its own handle
// on the database the parent names, and for each round the parent sends, waits for the round's start
// time (the same instant in every worker) and claims an attempt on the round's Task. It answers what
// the ledger said and when the call began and ended, so the parent can tell the calls overlapped.
import { openDatabase } from '../../src/ledger/db.js';
import { createLedger } from '../../src/ledger/ledger.js';

export interface ClaimRound {
  round: number;
  taskId: number;
  /** Every worker claims this head; null: each worker claims a head of its own on the same Task. */
  head: string | null;
  /** Date.now() at which to call claimAttempt. */
  at: number;
}

export interface ClaimAnswer {
  round: number;
  worker: number;
  kind: string;
  /** The winner's count of the Task's attempts, re-read inside its claim (C3). */
  counted: number | null;
  began: number;
  ended: number;
}

const worker = Number(process.env.CLAIM_WORKER);
const db = openDatabase(process.env.CLAIM_DATABASE_URL!, { poolSize: 1 });
const ledger = createLedger(db, { now: () => new Date() });

process.on('message', async (m: ClaimRound | 'stop') => {
  if (m === 'stop') {
    await db.close();
    process.disconnect();
    return;
  }
  await new Promise((r) => setTimeout(r, Math.max(0, m.at - Date.now())));
  const began = performance.timeOrigin + performance.now();
  const coordinate = m.head ?? `head-${m.round}-worker-${worker}`;
  let kind: string;
  let counted: number | null = null;
  try {
    const result = await ledger.claimAttempt({
      taskId: m.taskId,
      coordinate,
      source: 'gate',
      headSha: coordinate,
      fingerprint: `fp-${worker}`,
      rejection: { checkName: 'test', body: `red seen by worker ${worker}`, eventId: null },
    });
    kind = result.kind;
    if (result.kind === 'claimed') counted = result.attemptsCounted;
  } catch (err) {
    kind = `error: ${(err as Error).message}`;
  }
  const answer: ClaimAnswer = {
    round: m.round,
    worker,
    kind,
    counted,
    began,
    ended: performance.timeOrigin + performance.now(),
  };
  process.send!(answer);
});
process.send!('ready');
