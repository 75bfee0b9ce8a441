// C5/K2/T5/T6: the same failures on a new commit mean the last fix changed nothing (a stop notice);
// a head whose matrix has not reported yet waits (refused, judged again when it has). A person's
// approve-one is an explicit "try once more": the unchanged-failure stop yields to it.
import type { CheckResult } from '../../core/neutral-events.js';
import { evidenceOf } from '../../core/fingerprint.js';
import type { HeadChecks } from '../../core/head-checks.js';
import { DEFAULT_MATRIX_SETTLE_MINUTES, unchangedFailure, type HeadCheck } from '../../core/unchanged-failure.js';
import type { Attempt } from '../../core/types.js';
import type { Outcomes } from './outcome.js';
import type { EvaluateDeps, EvaluateLedger, TaskEvaluation } from './ports.js';
import type { Triaged } from './triage.js';

/** Reads the clock and, for a head the poll alone saw, the failure its attempt answered. */
export type UnchangedPort = Pick<EvaluateDeps, 'matrixSettleMs'> & {
  ledger: Pick<EvaluateLedger, 'now' | 'getRejection'>;
  end: Outcomes;
};

export async function compareWithLastHead(
  port: UnchangedPort,
  ev: TaskEvaluation,
  red: CheckResult,
  last: Attempt | undefined,
  headOf: (sha: string) => Promise<HeadChecks>,
): Promise<Triaged> {
  const { ledger, end } = port;
  const task = ev.task;
  if (!last || last.headSha === null || last.headSha === red.sha || task.approveOnePending)
    return { kind: 'go', reason: null, detail: null };
  const before = await previousHeadChecks(port, last, await headOf(last.headSha));
  const current = await headOf(red.sha);
  const now = [...current.checks];
  // The poll's red is not a stored delivery: it joins what was stored, unless that has it already.
  // A suite or workflow run sums up its jobs and is never one of the head's checks (head-checks.ts).
  if ((red.ciKind === 'run' || red.ciKind === 'status') && !now.some((c) => c.name === red.name.trim()))
    now.push({ name: red.name.trim(), verdict: 'red', evidence: evidenceOf(red.output) });
  const since = current.firstAt ?? task.ciHeadSeenAt ?? ledger.now();
  const settleMs = port.matrixSettleMs ?? DEFAULT_MATRIX_SETTLE_MINUTES * 60_000;
  const settled = Date.parse(ledger.now()) - Date.parse(since) >= settleMs;
  const same = unchangedFailure({ previous: before, current: now, settled });
  switch (same.kind) {
    case 'unchanged':
      return { kind: 'done', result: await end.notice(ev, 'unchanged_failure', red.sha, same.detail) };
    case 'undecided':
      return { kind: 'done', result: end.refuse(ev, 'awaiting_matrix', same.detail) };
    case 'changed':
      return { kind: 'go', reason: null, detail: `${same.why}: ${same.detail}` };
  }
}

/**
 * The last answered head's failures: what was stored for it or, when nothing was (a head the poll
 * alone saw), the one failure the attempt answered, from its rejection row.
 */
async function previousHeadChecks(port: UnchangedPort, last: Attempt, stored: HeadChecks): Promise<HeadCheck[]> {
  if (stored.checks.length > 0) return stored.checks;
  const row = last.rejectionId !== null ? await port.ledger.getRejection(last.rejectionId) : null;
  const name = row?.checkName?.trim();
  return row && name ? [{ name, verdict: 'red', evidence: evidenceOf(row.body) }] : [];
}
