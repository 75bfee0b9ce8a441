// The naive resume policies the spend benchmark compares fixloop with: each is one pure function
// deciding, for a delivery, whether to resume the agent, given the deliveries it already resumed on.
// A change request is a red delivery to them too (the check name "review"). `simulate` replays a
// lifecycle through one of them: the deliveries of each step in order, then the runs they started
// (runs take minutes, a burst of deliveries milliseconds), each for the commit its delivery was about.
// None of them triages: no re-run of failed jobs is ever asked, and a red on the base branch, an
// approval gate or an empty output is a red like any other.
import { isRed, World, type StreamEvent } from './spend-world.js';
import type { Lifecycle } from './spend-corpus.js';

export interface NaivePolicy {
  id: string;
  title: string;
  resume(e: StreamEvent, resumedOn: readonly StreamEvent[]): boolean;
}

/** The check a red delivery is about, for a per-check policy: check runs and reviews only. */
const checkOf = (e: StreamEvent): string | null =>
  e.kind === 'check_run' ? e.name : e.kind === 'review' ? 'review' : null;

/** (1) Every red delivery resumes: check runs, suites, workflow runs, redeliveries alike. */
export const everyRedDelivery: NaivePolicy = {
  id: 'every-red',
  title: 'every red delivery',
  resume: (e) => isRed(e),
};

/** (2) One resume per red push: the first red delivery of a commit resumes, nothing else is checked. */
export const oneResumePerRedPush: NaivePolicy = {
  id: 'per-push',
  title: 'one per red push',
  resume: (e, resumedOn) => isRed(e) && !resumedOn.some((r) => r.sha === e.sha),
};

/** (3) Each failing check may resume on 3 distinct commits, once per commit; suites and workflow runs are not checks. */
export const perCheckBudget3: NaivePolicy = {
  id: 'per-check-3',
  title: 'per-check budget 3',
  resume(e, resumedOn) {
    const check = checkOf(e);
    if (check === null || !isRed(e)) return false;
    const commits = new Set(resumedOn.filter((r) => checkOf(r) === check).map((r) => r.sha));
    return !commits.has(e.sha) && commits.size < 3;
  },
};

export const NAIVE_POLICIES: readonly NaivePolicy[] = [everyRedDelivery, oneResumePerRedPush, perCheckBudget3];

export interface NaiveResult {
  runs: number;
  fixes: number;
  falseFixes: number;
  deliveries: number;
}

export function simulate(lc: Lifecycle, policy: NaivePolicy): NaiveResult {
  const world = new World(lc, { now: () => new Date('2026-11-30T08:00:00Z') });
  const resumedOn: StreamEvent[] = [];
  let deliveries = 0;
  for (let step = world.next(); step; step = world.next()) {
    const started: string[] = [];
    for (const { event } of world.emit(step).items) {
      deliveries++;
      if (policy.resume(event, resumedOn)) {
        resumedOn.push(event);
        started.push(event.sha);
      }
    }
    for (const sha of started) world.act(world.labelOf(sha));
  }
  return { runs: world.tally.runs, fixes: world.tally.fixes, falseFixes: world.tally.falseFixes, deliveries };
}
