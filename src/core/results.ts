// Results (SPEC V1): does the loop pay? From plain rows of one period — the reds and attempts of each
// Task, what its runs spent, people's actions, the stops — to the figures a team's lead asks for: pull
// requests touched, how many went green with no person's action, attempts and spend per green pull
// request, time from first red to green, hand-offs by reason, fixes a person changed within a week,
// and the checks that cost most; overall and by repository, agent and check. Pure: no I/O, no clock.
// How each figure is computed is written for people in docs/results.md.

/** One Task that the period's rows name (a red or an attempt in the period). */
export interface ResultsTask {
  id: number;
  repository: string;
  /** The agent that runs for it (runner kind and preset), as the ledger or the configuration says. */
  agent: string;
  /** When the poll last saw its head pass (migration 0023); null: never, or before 0023 was applied. */
  greenAt: string | null;
  /** The head that passed then. */
  greenSha: string | null;
  /** The pull request's head as last seen, and when. */
  headSha: string | null;
  headSeenAt: string | null;
}

/** A red result the loop was told of (a `gate` rejection row), in the period. */
export interface ResultsRed {
  taskId: number;
  at: string;
  check: string | null;
}

/**
 * Automatic attempts claimed in the period for one Task and check, with what their runs spent: one
 * attempt (`count` absent), or several the ledger summed up (`at` the first, `lastAt` the last).
 */
export interface ResultsAttempt {
  taskId: number;
  at: string;
  /** The failing check it was claimed for; `review`/`bot` for a reviewer's rejection; null: unknown. */
  check: string | null;
  spend: number;
  /** How many attempts the row stands for; default 1. */
  count?: number;
  /** The last one's time; default `at`. */
  lastAt?: string;
}

/** Spend reported in the period by runs that belong to no attempt (a person's resume). */
export interface ResultsOtherSpend {
  taskId: number;
  amount: number;
}

/** A person's action on a Task (an `acted` decision row, their resume included). */
export interface ResultsPersonAct {
  taskId: number;
  at: string;
}

/** A stop notice filed in the period (a hand-off to a person, G1). */
export interface ResultsNotice {
  taskId: number;
  at: string;
  reason: string;
}

export interface ResultsRows {
  tasks: readonly ResultsTask[];
  reds: readonly ResultsRed[];
  attempts: readonly ResultsAttempt[];
  otherSpend: readonly ResultsOtherSpend[];
  personActs: readonly ResultsPersonAct[];
  notices: readonly ResultsNotice[];
}

export interface ResultsPeriod {
  /** Inclusive, ISO-8601. */
  from: string;
  /** Exclusive, ISO-8601. */
  to: string;
}

/** The figures of one group of pull requests (all of them, one repository, one agent, one check). */
export interface ResultsFigures {
  /** Pull requests the loop touched: a red or an attempt in the period. */
  pullRequests: number;
  /** …of which went green after their first red in the period. */
  green: number;
  /** …of which went green with no person's action, no person's resume and no hand-off between first red and green. */
  greenWithoutPerson: number;
  /** greenWithoutPerson / pullRequests, 0–1; null with no pull request. */
  fixRate: number | null;
  attempts: number;
  spend: number;
  /** attempts / greenWithoutPerson; null when none went green without a person. */
  attemptsPerGreen: number | null;
  /** spend / greenWithoutPerson; null when none went green without a person. */
  spendPerGreen: number | null;
  /** Minutes from first red to green, over the pull requests green without a person. */
  timeToGreenMinutes: { median: number | null; p90: number | null; samples: number[] };
  /** Stop notices filed, by reason, most first. */
  handOffs: Array<{ reason: string; count: number }>;
  /** Pull requests green without a person whose head a person moved within a week of green. */
  changedByPerson: number;
}

export interface CheckCost {
  check: string;
  attempts: number;
  spend: number;
  pullRequests: number;
}

export interface Results {
  period: ResultsPeriod;
  total: ResultsFigures;
  byRepository: Array<{ repository: string } & ResultsFigures>;
  byAgent: Array<{ agent: string } & ResultsFigures>;
  byCheck: Array<{ check: string } & ResultsFigures>;
  /** Checks by spend, then attempts, most first: where the loop's money goes. */
  costliestChecks: CheckCost[];
}

/** A week: how long after green a person's change of the head still counts against the fix. */
export const CHANGED_WITHIN_MS = 7 * 24 * 3_600_000;
/** The name a check is listed under when its attempt's check is not known. */
export const UNKNOWN_CHECK = '(unknown check)';

/** Per-Task facts the figures are sums of. */
interface TaskFacts {
  task: ResultsTask;
  checks: Set<string>;
  firstRed: string;
  attempts: number;
  spend: number;
  green: boolean;
  greenWithoutPerson: boolean;
  minutesToGreen: number | null;
  changedByPerson: boolean;
  notices: ResultsNotice[];
}

export function computeResults(period: ResultsPeriod, rows: ResultsRows): Results {
  const inPeriod = (at: string) => at >= period.from && at < period.to;
  const byTask = <T extends { taskId: number }>(list: readonly T[]) => {
    const m = new Map<number, T[]>();
    for (const r of list) {
      const l = m.get(r.taskId);
      if (l) l.push(r);
      else m.set(r.taskId, [r]);
    }
    return m;
  };
  const reds = byTask(rows.reds.filter((r) => inPeriod(r.at)));
  const attempts = byTask(rows.attempts.filter((a) => inPeriod(a.at)));
  const notices = byTask(rows.notices.filter((n) => inPeriod(n.at)));
  const allNotices = byTask(rows.notices);
  const acts = byTask(rows.personActs);
  const other = byTask(rows.otherSpend);

  const facts: TaskFacts[] = [];
  for (const task of rows.tasks) {
    const r = reds.get(task.id) ?? NONE;
    const a = attempts.get(task.id) ?? NONE;
    if (r.length === 0 && a.length === 0) continue; // not touched in the period
    // The first red or attempt of the period, the checks named, what the attempts spent.
    let firstRed = (r[0] ?? a[0])!.at;
    let lastAttempt: string | null = null;
    let spend = 0;
    let attemptCount = 0;
    const checks = new Set<string>();
    for (const x of r) {
      if (x.at < firstRed) firstRed = x.at;
      checks.add(x.check ?? UNKNOWN_CHECK);
    }
    for (const x of a as readonly ResultsAttempt[]) {
      if (x.at < firstRed) firstRed = x.at;
      const last = x.lastAt ?? x.at;
      if (lastAttempt === null || last > lastAttempt) lastAttempt = last;
      checks.add(x.check ?? UNKNOWN_CHECK);
      spend += x.spend;
      attemptCount += x.count ?? 1;
    }
    for (const o of other.get(task.id) ?? []) spend += o.amount;
    const greenAt = task.greenAt;
    const green = greenAt !== null && greenAt >= firstRed;
    // A person's action, resume or hand-off between the first red and green makes the green theirs.
    const greenWithoutPerson =
      green &&
      !someBetween(acts.get(task.id), firstRed, greenAt) &&
      !someBetween(allNotices.get(task.id), firstRed, greenAt);
    const minutesToGreen = greenWithoutPerson ? (Date.parse(greenAt) - Date.parse(firstRed)) / 60_000 : null;
    const changedByPerson =
      greenWithoutPerson &&
      task.headSha !== null &&
      task.headSeenAt !== null &&
      task.greenSha !== null &&
      task.headSha !== task.greenSha &&
      task.headSeenAt > greenAt &&
      Date.parse(task.headSeenAt) - Date.parse(greenAt) <= CHANGED_WITHIN_MS &&
      // An attempt after green is the loop's own next round, not a person's change.
      !(lastAttempt !== null && lastAttempt > greenAt);
    facts.push({
      task,
      checks,
      firstRed,
      attempts: attemptCount,
      spend,
      green,
      greenWithoutPerson,
      minutesToGreen,
      changedByPerson,
      notices: notices.get(task.id) ?? [],
    });
  }

  const group = <K extends string>(keysOf: (f: TaskFacts) => Iterable<string>, name: K) => {
    const m = new Map<string, TaskFacts[]>();
    for (const f of facts)
      for (const key of keysOf(f)) {
        const l = m.get(key);
        if (l) l.push(f);
        else m.set(key, [f]);
      }
    return [...m.entries()]
      .map(([key, fs]) => ({ [name]: key, ...figures(fs) }) as { [P in K]: string } & ResultsFigures)
      .sort((x, y) => y.pullRequests - x.pullRequests || (x[name] < y[name] ? -1 : x[name] > y[name] ? 1 : 0));
  };

  // A check's own figures count only the attempts claimed for it, so the rows add up to the total.
  const touched = new Set(facts.map((f) => f.task.id));
  const attemptsByCheck = new Map<string, ResultsAttempt[]>();
  for (const a of rows.attempts) {
    if (!inPeriod(a.at) || !touched.has(a.taskId)) continue;
    const key = a.check ?? UNKNOWN_CHECK;
    const l = attemptsByCheck.get(key);
    if (l) l.push(a);
    else attemptsByCheck.set(key, [a]);
  }
  const byCheck = group((f) => f.checks, 'check').map((row) => {
    const own = attemptsByCheck.get(row.check) ?? [];
    const attemptsN = sum(own.map((a) => a.count ?? 1));
    const spend = round(sum(own.map((a) => a.spend)));
    return {
      ...row,
      attempts: attemptsN,
      spend,
      attemptsPerGreen: row.greenWithoutPerson ? round(attemptsN / row.greenWithoutPerson) : null,
      spendPerGreen: row.greenWithoutPerson ? round(spend / row.greenWithoutPerson) : null,
    };
  });

  const costliestChecks: CheckCost[] = byCheck
    .filter((c) => c.attempts > 0)
    .map((c) => ({
      check: c.check,
      attempts: c.attempts,
      spend: c.spend,
      pullRequests: new Set((attemptsByCheck.get(c.check) ?? []).map((a) => a.taskId)).size,
    }))
    .sort((x, y) => y.spend - x.spend || y.attempts - x.attempts || (x.check < y.check ? -1 : 1));

  return {
    period,
    total: figures(facts),
    byRepository: group((f) => [f.task.repository], 'repository'),
    byAgent: group((f) => [f.task.agent], 'agent'),
    byCheck,
    costliestChecks,
  };
}

const NONE: readonly never[] = [];

function someBetween(list: readonly { at: string }[] | undefined, from: string, to: string): boolean {
  if (!list) return false;
  for (const x of list) if (x.at >= from && x.at <= to) return true;
  return false;
}

function figures(fs: readonly TaskFacts[]): ResultsFigures {
  const pullRequests = fs.length;
  const green = fs.filter((f) => f.green).length;
  const greenWithoutPerson = fs.filter((f) => f.greenWithoutPerson).length;
  const attempts = sum(fs.map((f) => f.attempts));
  const spend = round(sum(fs.map((f) => f.spend)));
  const samples = fs
    .map((f) => f.minutesToGreen)
    .filter((m): m is number => m !== null)
    .sort((a, b) => a - b)
    .map(round);
  const reasons = new Map<string, number>();
  for (const f of fs) for (const n of f.notices) reasons.set(n.reason, (reasons.get(n.reason) ?? 0) + 1);
  return {
    pullRequests,
    green,
    greenWithoutPerson,
    fixRate: pullRequests ? round(greenWithoutPerson / pullRequests) : null,
    attempts,
    spend,
    attemptsPerGreen: greenWithoutPerson ? round(attempts / greenWithoutPerson) : null,
    spendPerGreen: greenWithoutPerson ? round(spend / greenWithoutPerson) : null,
    timeToGreenMinutes: { median: percentile(samples, 0.5), p90: percentile(samples, 0.9), samples },
    handOffs: [...reasons.entries()]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1)),
    changedByPerson: fs.filter((f) => f.changedByPerson).length,
  };
}

/**
 * The nearest-rank percentile of sorted samples (the smallest value with at least q of the samples at
 * or below it): p50 of [10, 20, 30, 40] is 20, p90 is 40. Null with no sample.
 */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

/** Amounts and ratios to a hundredth of a hundredth (no float noise like 0.30000000000000004). */
function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

function sum(ns: readonly number[]): number {
  return ns.reduce((a, b) => a + b, 0);
}

/** The period `period=7d|30d|90d` (default 30 days) ending at `now`, or `from`/`to` dates. */
export const RESULTS_PERIODS = ['7d', '30d', '90d'] as const;
export type ResultsPeriodName = (typeof RESULTS_PERIODS)[number];

export type PeriodInput = { from?: string; to?: string; period?: ResultsPeriodName };
export type PeriodVerdict = { kind: 'ok'; period: ResultsPeriod } | { kind: 'invalid'; message: string };

const DAY_MS = 24 * 3_600_000;
const MAX_DAYS = 366;

/**
 * Resolves a period from a query: `from`/`to` are ISO dates (a bare date `2026-11-01` is that day's
 * start, UTC; `to` as a bare date includes that whole day). Without them, the last `period` (30 days).
 */
export function resolvePeriod(input: PeriodInput, now: Date): PeriodVerdict {
  if (input.period && (input.from || input.to))
    return { kind: 'invalid', message: 'give either `period` or `from`/`to`, not both' };
  if (input.from || input.to) {
    const to = input.to ? parseDate(input.to, true) : now;
    if (to === null) return { kind: 'invalid', message: '`to` must be an ISO date, like 2026-11-30' };
    const from = input.from ? parseDate(input.from, false) : new Date(to.getTime() - 30 * DAY_MS);
    if (from === null) return { kind: 'invalid', message: '`from` must be an ISO date, like 2026-11-01' };
    if (from.getTime() >= to.getTime()) return { kind: 'invalid', message: '`from` must come before `to`' };
    if (to.getTime() - from.getTime() > MAX_DAYS * DAY_MS)
      return { kind: 'invalid', message: `a period is at most ${MAX_DAYS} days` };
    return { kind: 'ok', period: { from: from.toISOString(), to: to.toISOString() } };
  }
  const days = Number((input.period ?? '30d').slice(0, -1));
  return {
    kind: 'ok',
    period: { from: new Date(now.getTime() - days * DAY_MS).toISOString(), to: now.toISOString() },
  };
}

function parseDate(text: string, endOfDay: boolean): Date | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const d = new Date(`${text}T00:00:00.000Z`);
    if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text) return null;
    return endOfDay ? new Date(d.getTime() + DAY_MS) : d;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? null : d;
}
