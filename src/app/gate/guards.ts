// K7, K9, K6: the guards that look at the Task's attempts and spend before anything is claimed —
// one attempt in flight at a time, the wake caps, the cost ceiling (core/in-flight.ts,
// core/wake-caps.ts, core/cost-ceiling.ts decide). A cap that clears on its own refuses; one that
// needs a person stops the loop.
import { inFlightVerdict } from '../../core/in-flight.js';
import { wakeVerdict } from '../../core/wake-caps.js';
import { costVerdict, expectedNextCost } from '../../core/cost-ceiling.js';
import type { Refusal, StopReason } from '../../core/reasons.js';
import type { Task } from '../../core/types.js';
import type { EvaluateDeps, EvaluateLedger } from './ports.js';

/** Reads the attempts' lives, the last time a person acted, and the spend; writes nothing. */
export type GuardsPort = Pick<EvaluateDeps, 'agent' | 'wakeCaps' | 'cost'> & {
  ledger: Pick<EvaluateLedger, 'now'>;
};

export type GuardStop =
  { kind: 'stop'; reason: StopReason; detail: string } | { kind: 'refuse'; reason: Refusal; detail: string };

export async function guardsBeforeClaim(port: GuardsPort, task: Task): Promise<GuardStop | null> {
  const { agent, ledger } = port;
  const lives = await agent.lives(task.id);
  const inFlight = inFlightVerdict(lives.map((l) => ({ id: l.attemptId, state: l.state })));
  if (inFlight.kind === 'refuse') return { kind: 'refuse', reason: 'attempt_in_flight', detail: inFlight.detail };
  const wake = wakeVerdict({
    wakes: lives.map((l) => l.createdAt),
    now: ledger.now(),
    lastHumanAt: await agent.humanAt(task.id),
    ...port.wakeCaps,
  });
  if (wake.kind === 'stop') {
    // The window cap clears on its own: a refusal the poll retries; the cap since a person acted needs one.
    return wake.reason === 'wake_cap_window'
      ? { kind: 'refuse', reason: 'wake_cap_window', detail: wake.detail }
      : { kind: 'stop', reason: wake.reason, detail: wake.detail };
  }
  if (port.cost && port.cost.ceiling !== null) {
    const totals = await agent.spendTotals(task.id);
    const spent = [
      { model: totals.model, sandbox: totals.sandbox, ciMinutes: totals.ciMinutes * port.cost.ciMinutePrice },
    ];
    const expectedNext = expectedNextCost(await agent.spendPerAttempt(task.id), port.cost.expectedAttemptCost);
    const cost = costVerdict({ spent, expectedNext, ceiling: port.cost.ceiling });
    if (cost.kind === 'stop') return { kind: 'stop', reason: cost.reason, detail: cost.detail };
  }
  return null;
}
