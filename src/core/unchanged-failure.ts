// Whether a new head fails exactly as the head of the last automatic attempt did (SPEC C5, K2, T5,
// T6; decision 0029). Judged over each head's whole set of failing checks, never over whichever job
// reported first, so the order a matrix reports in cannot change the answer; while the new head has
// not yet reported every check that failed before, the answer waits. Pure: both heads in, a verdict out.
import type { Evidence } from './fingerprint.js';
import type { Verdict } from './verdict.js';

/** How long a new head's checks get to report, by default, before a failure still missing counts as changed. */
export const DEFAULT_MATRIX_SETTLE_MINUTES = 20;

/** The latest result of one check of a head: its verdict and, when red, what its output shows. */
export interface HeadCheck {
  name: string;
  verdict: Verdict;
  evidence: Evidence;
}

export interface UnchangedInput {
  /** The head the last automatic attempt answered, as it settled. */
  previous: readonly HeadCheck[];
  /** The new head, as far as it has reported. */
  current: readonly HeadCheck[];
  /** The new head had time to report (decision 0029): a check still missing is not coming back. */
  settled: boolean;
}

/** Why the new head is not the last head's failure again; each is a reason to spend the attempt. */
export const CHANGED_WHYS = [
  'nothing_to_compare', // the last head has no failing check on record
  'degraded_evidence', // an empty output or an unreadable log on either side (T5)
  'new_failure', // a check fails here that did not fail before
  'different_output', // a check fails here with other output than before
  'fixed', // a check that failed before passes here: the fix did something (T6)
  'missing', // a check that failed before has not failed here by the time the head settled
] as const;
export type ChangedWhy = (typeof CHANGED_WHYS)[number];

export type UnchangedVerdict =
  | { kind: 'unchanged'; detail: string }
  | { kind: 'changed'; why: ChangedWhy; detail: string }
  | { kind: 'undecided'; waitingFor: string[]; detail: string };

function latestByName(checks: readonly HeadCheck[]): Map<string, HeadCheck> {
  const out = new Map<string, HeadCheck>();
  for (const c of checks) out.set(c.name.trim(), c); // later results of a check (a re-run) replace earlier ones
  return out;
}

const list = (names: readonly string[]) => (names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} …`);

export function unchangedFailure(input: UnchangedInput): UnchangedVerdict {
  const before = [...latestByName(input.previous).values()].filter((c) => c.verdict === 'red');
  const now = latestByName(input.current);
  const changed = (why: ChangedWhy, detail: string): UnchangedVerdict => ({ kind: 'changed', why, detail });
  if (before.length === 0) return changed('nothing_to_compare', 'the last head has no failing check on record');

  // T5: degraded evidence can never show that nothing changed, on either side.
  const degraded = [...before, ...[...now.values()].filter((c) => c.verdict === 'red')].filter(
    (c) => c.evidence.kind === 'degraded',
  );
  if (degraded.length > 0) {
    const why = new Map(degraded.map((c) => [c.name.trim(), c.evidence.kind === 'degraded' ? c.evidence.why : '']));
    return changed('degraded_evidence', list([...why].map(([name, w]) => `${name} (${w})`)));
  }

  const beforeByName = new Map(before.map((c) => [c.name.trim(), c]));
  for (const [name, c] of now) {
    if (c.verdict !== 'red') continue;
    const was = beforeByName.get(name);
    if (!was) return changed('new_failure', `${name} fails, and did not on the last head`);
    if (was.evidence.kind === 'text' && c.evidence.kind === 'text' && was.evidence.digest !== c.evidence.digest)
      return changed('different_output', `${name} fails with other output than on the last head`);
  }
  const fixed = before.filter((c) => now.get(c.name.trim())?.verdict === 'green').map((c) => c.name);
  if (fixed.length > 0) return changed('fixed', `${list(fixed)} passes now`);

  // Every failure so far is one of the last head's: the rest of them decide.
  const missing = before.filter((c) => now.get(c.name.trim())?.verdict !== 'red').map((c) => c.name);
  if (missing.length === 0)
    return {
      kind: 'unchanged',
      detail:
        before.length === 1
          ? `${before[0]!.name} fails as before`
          : `all ${before.length} failing checks fail as before`,
    };
  if (input.settled) return changed('missing', `${list(missing)} did not report a failure again`);
  return {
    kind: 'undecided',
    waitingFor: missing,
    detail: `${before.length - missing.length} of ${before.length} failing checks as before; waiting for ${list(missing)}`,
  };
}
