// SPEC I5: every open Task as core/liveness.ts reads it, from the ledger and the attempts' lives, and
// the part of the ledger the liveness pass (app/keep-loops-alive.ts) needs.
import type { LivenessAttempt, LivenessTask } from '../core/liveness.js';
import type { Task } from '../core/types.js';
import type { AgentLedger } from './agent-port.js';
import type { Ledger } from './ledger-port.js';

/** What the liveness pass reads of every open Task, and the one thing it writes itself: a notice. */
export type LivenessLedger = Pick<
  Ledger,
  | 'fileNotice'
  | 'getRun'
  | 'getTask'
  | 'lastRedEvent'
  | 'listAttempts'
  | 'listRuns'
  | 'listTasks'
  | 'pageRuns'
  | 'readStopFlag'
  | 'recordDecisions'
>;

/**
 * I5: every open Task as core/liveness.ts reads it. A Task the gate has stopped for good (notice,
 * parked, closed) needs nothing more read to be judged, so its attempts and runs are not read; with
 * `redOnly`, neither are those of a Task whose head is not red (the periodic pass, which has moved
 * every attempt in flight by its own rules already).
 */
export async function livenessSnapshot(
  ledger: Pick<LivenessLedger, 'listAttempts' | 'listRuns' | 'listTasks'>,
  agent: Pick<AgentLedger, 'lives'>,
  o: { redOnly?: boolean } = {},
): Promise<Array<LivenessTask & { task: Task }>> {
  const out: Array<LivenessTask & { task: Task }> = [];
  for (const task of await ledger.listTasks({ state: 'open' })) {
    const stopped = task.noticeAt !== null || task.parkedAt !== null || task.prState !== 'open';
    if (stopped || (o.redOnly === true && task.ciState !== 'red')) {
      out.push({ task, latestRun: null, attempts: [] });
      continue;
    }
    const [attempts, lives, runs] = await Promise.all([
      ledger.listAttempts(task.id),
      agent.lives(task.id),
      ledger.listRuns(task.id),
    ]);
    const lifeOf = new Map(lives.map((l) => [l.attemptId, l]));
    const runOf = new Map(runs.map((r) => [r.id, r]));
    out.push({
      task,
      latestRun: runs.at(-1) ?? null,
      attempts: attempts.map((a): LivenessAttempt => {
        const l = lifeOf.get(a.id);
        return {
          id: a.id,
          source: a.source,
          headSha: a.headSha,
          status: a.status,
          state: l?.state ?? a.state,
          outcome: l?.outcome ?? a.outcome,
          actionTakenAt: l?.actionTakenAt ?? null,
          since: l?.updatedAt ?? a.createdAt,
          runState: a.runId !== null ? (runOf.get(a.runId)?.state ?? null) : null,
        };
      }),
    });
  }
  return out;
}
