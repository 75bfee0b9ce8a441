// No CI for the agent's new head (SPEC T4; the rule in core/no-ci.ts), judged on every Task the poll
// reads: it already holds the head's check runs, so only a head that has none past the wait costs a
// read of its statuses. The notice goes through the gate's stop, like every stop (G1): once, with
// the hand-off, and the board says why.
import { noCiVerdict } from '../core/no-ci.js';
import type { Task } from '../core/types.js';
import type { AgentLedger } from './agent-port.js';
import type { Evaluator } from './evaluate.js';
import type { CheckRunInfo, ProviderPort, PullRequestInfo } from './provider-port.js';
import type { Clock } from './ports.js';

export interface NoCiDeps {
  /** The Task's attempts and their lifecycle, for the newest one. */
  agent: Pick<AgentLedger, 'lives'>;
  host: Pick<ProviderPort, 'listStatuses'>;
  evaluator: Pick<Evaluator, 'stop'>;
  clock: Clock;
  /** triage.noCiMinutes in ms; 0 turns the rule off. */
  waitMs: number;
}

export function createNoCiCheck(deps: NoCiDeps) {
  return async function checkNoCi(task: Task, pr: PullRequestInfo, runs: readonly CheckRunInfo[]): Promise<void> {
    if (deps.waitMs <= 0 || pr.state !== 'open') return;
    const lives = await deps.agent.lives(task.id);
    const latest = lives.reduce<(typeof lives)[number] | null>(
      (m, l) => (m === null || l.attemptId > m.attemptId ? l : m),
      null,
    );
    const facts = {
      latestAttempt: latest ? { headSha: latest.headSha, state: latest.state } : null,
      head: { sha: pr.headSha, seenAt: task.ciHeadSha === pr.headSha ? task.ciHeadSeenAt : null },
      checksOnHead: runs.length > 0 ? runs.length : null,
      loopIdle: task.noticeAt !== null || task.loopOff || task.skipLabel || task.parkedAt !== null,
      now: deps.clock.now().toISOString(),
      waitMs: deps.waitMs,
    };
    let verdict = noCiVerdict(facts);
    if (verdict.kind === 'read_checks') {
      const statuses = await deps.host.listStatuses(task.repository, pr.headSha);
      verdict = noCiVerdict({ ...facts, checksOnHead: statuses.length });
    }
    if (verdict.kind === 'notice') await deps.evaluator.stop(task, 'no_ci', verdict.detail, pr.headSha);
  };
}
