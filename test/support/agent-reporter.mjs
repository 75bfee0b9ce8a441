// A stand-in agent for the kill -9 trials (SPEC I5): it notes its start in $AGENT_DIR/start-<run>,
// waits a little, reports the outcome its run id picks (action_taken, non_actionable, blocked, or
// none) to the fixloop API it was given — trying again while fixloop restarts, as an agent whose
// server died would reach the one that replaced it — waits a little more and exits (now and then 1).
// It writes nothing to stdout or stderr: a parent killed mid-run must not take it down by a pipe.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

const runId = Number(process.env.FIXLOOP_RUN_ID);
appendFileSync(join(process.env.AGENT_DIR, `start-${runId}`), `${process.pid}\n`);
// Never outlive a test by much.
setTimeout(() => process.exit(3), 10_000).unref();

// The run id and the trial seed pick the behaviour, so a trial is the same when run again.
let x = (runId * 2654435761 + Number(process.env.TRIAL_SEED ?? 1)) >>> 0;
const next = (n) => {
  x = (x * 1103515245 + 12345) >>> 0;
  return (x >>> 8) % n;
};
const outcome = ['action_taken', 'non_actionable', 'blocked', null][next(4)];
const before = next(250);
const after = next(250);
const code = next(10) === 0 ? 1 : 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await sleep(before);
if (outcome) {
  const body = JSON.stringify(
    outcome === 'blocked' ? { outcome, reason: 'needs a secret only a person has' } : { outcome },
  );
  for (let i = 0; i < 40; i++) {
    try {
      const res = await fetch(`${process.env.FIXLOOP_API_URL}/api/run/outcome`, {
        method: 'POST',
        headers: { authorization: `Bearer ${process.env.FIXLOOP_RUN_TOKEN}`, 'content-type': 'application/json' },
        body,
      });
      await res.text();
      break; // answered: recorded, or refused (a run already ended says so); either way, done
    } catch {
      await sleep(100); // fixloop is down: the next one will answer
    }
  }
}
await sleep(after);
process.exit(code);
