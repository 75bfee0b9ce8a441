// Results (SPEC V1), the use-case behind `GET /api/results`, the `/results` page and `fixloop results`:
// resolve the period asked for, read its rows through a one-method port, compute the figures in
// core/results.ts. The ledger does not record which agent ran (one runner per install), so the
// configured runner's name stands in for a Task whose agent the rows leave blank.
import { computeResults, resolvePeriod, type PeriodInput, type Results, type ResultsRows } from '../core/results.js';

/** What Results reads: the rows of one period. */
export interface ResultsLedger {
  resultsRows(period: { from: string; to: string }): Promise<ResultsRows>;
}

export interface ResultsDeps {
  ledger: ResultsLedger;
  now(): Date;
  /** The configured runner as people call it (e.g. `command: claude-code-resume`, `http`). */
  agent: string;
  /** The currency every amount is in (`guards.currency`). */
  currency: string;
}

export type ResultsAnswer =
  { kind: 'ok'; results: Results & { currency: string } } | { kind: 'invalid'; message: string };

export async function readResults(deps: ResultsDeps, input: PeriodInput): Promise<ResultsAnswer> {
  const p = resolvePeriod(input, deps.now());
  if (p.kind === 'invalid') return p;
  const rows = await deps.ledger.resultsRows(p.period);
  const tasks = rows.tasks.map((t) => (t.agent ? t : { ...t, agent: deps.agent }));
  return { kind: 'ok', results: { ...computeResults(p.period, { ...rows, tasks }), currency: deps.currency } };
}

/** The configured runner's name for Results: its kind, and its preset when it has one. */
export function agentName(
  runner: { kind: string; preset?: { name: string } | null; vendor?: string } | null | undefined,
): string {
  if (!runner) return 'no runner';
  if (runner.kind === 'session' && runner.vendor) return `session: ${runner.vendor}`;
  return runner.kind === 'command' && runner.preset ? `command: ${runner.preset.name}` : runner.kind;
}
