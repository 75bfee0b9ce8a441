// The green gate (SPEC B4, with B2 and B3): the poll's verdict over every check run and status of a
// head at once. Red beats everything; "passing" needs an explicit success for every required check —
// stricter than "not red". A skipped check passes only when the job that decided the skip succeeded;
// a required check that is missing, cancelled, neutral or stale leaves the gate not green.
import { verdictOfConclusion, verdictOfStatusState } from './verdict.js';

/** The fields of a check run the gate reads (the GitHub port's CheckRunInfo fits). */
export interface GateCheckRun {
  id: number;
  name: string;
  status: string; // queued | in_progress | completed | waiting | requested | pending
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
}

/** The fields of a commit status the gate reads (the GitHub port's CommitStatusInfo fits). */
export interface GateStatus {
  context: string;
  state: string; // error | failure | pending | success
  updatedAt: string | null;
}

export interface GateInput {
  checkRuns: readonly GateCheckRun[];
  statuses: readonly GateStatus[];
  /** Required check names / status contexts; null or empty = every check run and status on the head. */
  required: readonly string[] | null;
  /** Skipped check name → the check run whose success decided the skip (GitHub does not link them). */
  deciders?: Readonly<Record<string, string>>;
}

export const GATE_VERDICTS = ['red', 'passing', 'pending', 'not_green'] as const;
export type GateVerdict = (typeof GATE_VERDICTS)[number];

/** Why a check keeps the gate from passing. One closed list, shown in the Task's API view. */
const GATE_WHYS = [
  'failed', // B3 red: failure, timed_out, action_required, startup_failure; status failure/error
  'missing', // required, but no run or status for the head
  'cancelled',
  'neutral',
  'stale',
  'in_progress', // not completed yet (queued, in_progress, waiting, requested; status pending)
  'unsettled', // completed with no conclusion (A4): never a pass
  'unknown_conclusion', // a conclusion GitHub may add later: not a success
  'skipped_without_decider', // skipped, and no decider is known for it
  'skipped_decider_missing', // skipped; its decider has no run on the head
  'skipped_decider_pending', // skipped; its decider has not finished
  'skipped_decider_not_green', // skipped; its decider finished without success
  'no_checks', // nothing is required and nothing ran: no evidence of green
] as const;
export type GateWhy = (typeof GATE_WHYS)[number];

export interface GateReason {
  check: string;
  why: GateWhy;
  /** The conclusion or status state seen, when there was one. */
  seen: string | null;
  /** For skipped checks: the decider looked at. */
  decider?: string;
}

export interface GateResult {
  verdict: GateVerdict;
  reasons: GateReason[];
  /** Names of the red check runs and status contexts, required or not (sorted, unique). */
  failing: string[];
}

/** How each why weighs on the verdict: red > pending > not_green > passing. */
const WEIGHT: Record<GateWhy, Exclude<GateVerdict, 'passing'>> = {
  failed: 'red',
  in_progress: 'pending',
  unsettled: 'pending',
  skipped_decider_pending: 'pending',
  missing: 'not_green',
  cancelled: 'not_green',
  neutral: 'not_green',
  stale: 'not_green',
  unknown_conclusion: 'not_green',
  skipped_without_decider: 'not_green',
  skipped_decider_missing: 'not_green',
  skipped_decider_not_green: 'not_green',
  no_checks: 'not_green',
};

export function greenGate(input: GateInput): GateResult {
  const runs = latestRunByName(input.checkRuns);
  const statuses = latestStatusByContext(input.statuses);
  const deciders = input.deciders ?? {};
  const reasons: GateReason[] = [];

  // B3/B2: any red, required or not, beats everything.
  for (const run of runs.values()) {
    if (run.status === 'completed' && verdictOfConclusion(run.conclusion) === 'red') {
      reasons.push({ check: run.name, why: 'failed', seen: run.conclusion });
    }
  }
  for (const s of statuses.values()) {
    if (verdictOfStatusState(s.state) === 'red') reasons.push({ check: s.context, why: 'failed', seen: s.state });
  }
  const failing = [...new Set(reasons.map((r) => r.check))].sort();

  const required =
    input.required && input.required.length > 0
      ? [...new Set(input.required)]
      : [...new Set([...runs.keys(), ...statuses.keys()])];
  if (required.length === 0) reasons.push({ check: '*', why: 'no_checks', seen: null });

  for (const name of required) {
    const run = runs.get(name);
    const status = statuses.get(name);
    if (!run && !status) {
      reasons.push({ check: name, why: 'missing', seen: null });
      continue;
    }
    if (run) {
      const r = runReason(run, runs, deciders);
      if (r && r.why !== 'failed') reasons.push(r);
    }
    if (status) {
      const r = statusReason(status);
      if (r && r.why !== 'failed') reasons.push(r);
    }
  }

  reasons.sort((a, b) =>
    a.check < b.check ? -1 : a.check > b.check ? 1 : GATE_WHYS.indexOf(a.why) - GATE_WHYS.indexOf(b.why),
  );
  return { verdict: verdictOf(reasons), reasons, failing };
}

function verdictOf(reasons: readonly GateReason[]): GateVerdict {
  const weights = new Set(reasons.map((r) => WEIGHT[r.why]));
  if (weights.has('red')) return 'red';
  if (weights.has('pending')) return 'pending';
  if (weights.has('not_green')) return 'not_green';
  return 'passing';
}

/** Null when the run is an explicit pass for the gate. */
function runReason(
  run: GateCheckRun,
  runs: ReadonlyMap<string, GateCheckRun>,
  deciders: Readonly<Record<string, string>>,
): GateReason | null {
  if (run.status !== 'completed') return { check: run.name, why: 'in_progress', seen: run.status };
  const c = run.conclusion;
  switch (verdictOfConclusion(c)) {
    case 'green':
      return null;
    case 'red':
      return { check: run.name, why: 'failed', seen: c };
    case 'unsettled':
      return { check: run.name, why: c == null || c === '' ? 'unsettled' : 'unknown_conclusion', seen: c || null };
    case 'inconclusive':
      break;
  }
  if (c === 'cancelled') return { check: run.name, why: 'cancelled', seen: c };
  if (c === 'neutral') return { check: run.name, why: 'neutral', seen: c };
  if (c === 'stale') return { check: run.name, why: 'stale', seen: c };
  // skipped: passes only on its decider's explicit success (B4).
  const deciderName = Object.hasOwn(deciders, run.name) ? deciders[run.name] : undefined;
  if (deciderName === undefined || deciderName === '' || deciderName === run.name) {
    return { check: run.name, why: 'skipped_without_decider', seen: c };
  }
  const decider = runs.get(deciderName);
  const skipped = (why: GateWhy): GateReason => ({ check: run.name, why, seen: c, decider: deciderName });
  if (!decider) return skipped('skipped_decider_missing');
  if (decider.status !== 'completed' || decider.conclusion == null || decider.conclusion === '')
    return skipped('skipped_decider_pending');
  return verdictOfConclusion(decider.conclusion) === 'green' ? null : skipped('skipped_decider_not_green');
}

function statusReason(s: GateStatus): GateReason | null {
  if (s.state === 'success') return null;
  if (verdictOfStatusState(s.state) === 'red') return { check: s.context, why: 'failed', seen: s.state };
  if (s.state === 'pending') return { check: s.context, why: 'in_progress', seen: s.state };
  return { check: s.context, why: 'unknown_conclusion', seen: s.state };
}

/**
 * Re-runs share a name: the latest decides. Ordered by completion (or start) time as instants, then
 * by id; a run with no time at all has not started, so it is the newest (a queued re-run keeps the
 * gate pending rather than letting an older success pass).
 */
function latestRunByName(runs: readonly GateCheckRun[]): Map<string, GateCheckRun> {
  const out = new Map<string, GateCheckRun>();
  for (const run of runs) {
    const seen = out.get(run.name);
    if (!seen || compareRuns(run, seen) > 0) out.set(run.name, run);
  }
  return out;
}

function compareRuns(a: GateCheckRun, b: GateCheckRun): number {
  const ta = instant(a.completedAt ?? a.startedAt);
  const tb = instant(b.completedAt ?? b.startedAt);
  if (ta !== tb) return ta > tb ? 1 : -1;
  return a.id - b.id;
}

function latestStatusByContext(statuses: readonly GateStatus[]): Map<string, GateStatus> {
  const out = new Map<string, GateStatus>();
  for (const s of statuses) {
    const seen = out.get(s.context);
    // Ties keep the first listed: GitHub lists a ref's statuses newest first.
    if (!seen || instant(s.updatedAt) > instant(seen.updatedAt)) out.set(s.context, s);
  }
  return out;
}

/** Epoch ms; an absent or unparsable time sorts after every real one. */
function instant(t: string | null): number {
  if (t == null) return Number.POSITIVE_INFINITY;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
}
