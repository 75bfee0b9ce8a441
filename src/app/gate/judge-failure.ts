// Judge the failure (SPEC T1–T3, then C5/K2/T5/T6): whether this red is the agent's to fix
// (triage.ts), and whether it is the last head's failures all over again (unchanged.ts). Reads the
// head's stored deliveries, and those of the heads earlier attempts answered, each once.
import type { CheckResult } from '../../core/neutral-events.js';
import { headChecksOf, type HeadChecks } from '../../core/head-checks.js';
import type { Attempt } from '../../core/types.js';
import { HEAD_EVENTS_MAX, type EvaluateDeps, type EvaluateLedger, type TaskEvaluation } from './ports.js';
import { triageFailure, type TriagePort, type Triaged } from './triage.js';
import { compareWithLastHead, type UnchangedPort } from './unchanged.js';

export type JudgePort = TriagePort &
  UnchangedPort &
  Pick<EvaluateDeps, 'classify'> & {
    ledger: Pick<EvaluateLedger, 'headCheckEvents'> & TriagePort['ledger'] & UnchangedPort['ledger'];
  };

export async function judgeFailure(
  port: JudgePort,
  ev: TaskEvaluation,
  red: CheckResult,
  attempts: Attempt[],
): Promise<Triaged> {
  const read = new Map<string, HeadChecks>();
  const headOf = async (sha: string): Promise<HeadChecks> => {
    let h = read.get(sha);
    if (!h)
      read.set(
        sha,
        (h = headChecksOf(await port.ledger.headCheckEvents(red.repository, sha, HEAD_EVENTS_MAX), port.classify)),
      );
    return h;
  };
  const answered = attempts.filter((a) => a.source === 'gate');
  const triaged = await triageFailure(port, ev, red, answered, headOf);
  if (triaged.kind === 'done') return triaged;
  const compared = await compareWithLastHead(port, ev, red, answered.at(-1), headOf);
  if (compared.kind === 'done') return compared;
  const detail = [triaged.detail, compared.detail].filter((d) => d !== null).join('; ');
  return { kind: 'go', reason: triaged.reason, detail: detail || null };
}
