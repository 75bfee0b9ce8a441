// What a lifecycle of the spend benchmark's corpus is (bench/spend-corpus.ts), and the building
// blocks its lifecycles are written with (bench/spend-lifecycles-*.ts).
//
// Heads are labels ('A', 'B', …): the world gives each a 40-hex SHA per lifecycle.
import type { FakeCompareFile } from '../test/support/fake-github/state.js';

export interface Job {
  name: string;
  conclusion: 'success' | 'failure';
  /** The check run's output summary (what fixloop fingerprints and seeds the prompt with). */
  output?: string;
}

/**
 * One GitHub Actions workflow run completing on a commit: a completed check_run per job, then the
 * check suite and the workflow run (each red when a job failed) — what GitHub sends for it.
 */
export interface CiStep {
  kind: 'ci';
  head: string;
  workflow: string;
  jobs: Job[];
  /** Each job's created and in_progress check_run too (a matrix as GitHub sends it). */
  progress?: boolean;
  /** Every delivery sent a second time, byte-identical, same delivery id (a redelivery). */
  redeliver?: boolean;
  /** A re-run of the workflow on the same commit: new check run ids, run attempt + 1, no code change. */
  rerun?: boolean;
  /**
   * The workflow waits for a person to approve it (an agent's or a first-time contributor's branch):
   * no job runs; the check suite and the workflow run complete as `action_required`. `jobs` is empty.
   */
  awaitingApproval?: boolean;
  /** The workflow run that awaited approval runs now that a person approved it: same run, same attempt. */
  approved?: boolean;
  /** The jobs report in this many bursts, a poll interval apart (a matrix finishing over minutes); default 1. */
  bursts?: number;
}

/** A reviewer submits a review on `head`. */
export interface ReviewStep {
  kind: 'review';
  head: string;
  state: 'changes_requested' | 'approved';
  body: string;
}

/** The branch moves with no resumed run behind it (the agent's original run pushes a follow-up commit). */
export interface PushStep {
  kind: 'push';
  to: string;
}

/** The base branch (`main`) moves to a new commit, whose checks are these (the poll reads them; no webhook). */
export interface BaseStep {
  kind: 'base';
  jobs: Job[];
}

/**
 * Issue 36: GitHub reports the head's merge state (`mergeable_state`, which the poll reads): `dirty`
 * (it conflicts with the base), `behind` (the base requires up-to-date branches), `clean`.
 */
export interface MergeStateStep {
  kind: 'merge_state';
  head: string;
  state: 'dirty' | 'behind' | 'clean';
}

/**
 * Issue 36: the merge queue tests `head` combined with the base and the pull requests ahead of it. Its
 * jobs run on the queue's own commit (branch `gh-readonly-queue/main/pr-<n>-<head>`, no pull request
 * pointer); the pull request then leaves the queue (`dequeued`) with `dequeued` as its reason — by
 * default `CI_FAILURE` when a job failed, and none (merged) when all passed.
 */
export interface QueueStep {
  kind: 'queue';
  head: string;
  jobs: Job[];
  dequeued?: string;
}

export type WorldStep = CiStep | ReviewStep | PushStep | BaseStep | MergeStateStep | QueueStep;

/** The agent pushes (and reports `action_taken`). */
export interface AgentPush {
  kind: 'push';
  to: string;
  /** What the push changes: GitHub's compare of the run's head and `to`. */
  files: FakeCompareFile[];
  /** What the branch changes since the loop's first head, when it is not `files` (the thrash guard reads it). */
  sinceBase?: FakeCompareFile[];
  /** A real fix, a "fix" that edits what judges it (green, but not a fix), or an attempt that fixes nothing. */
  verdict: 'fix' | 'false_fix' | 'attempt';
  /** What follows the push: its CI, a reviewer's next round. */
  then: WorldStep[];
}

export type AgentAction =
  | AgentPush
  /** Nothing to push (reports `non_actionable`). */
  | { kind: 'nothing' }
  /** The run dies: no push, no outcome. */
  | { kind: 'crash' };

export interface Lifecycle {
  id: string;
  title: string;
  pr: number;
  /** The fewest model runs that reach the fix(es) with this agent; 0 when no run can fix it. */
  oracle: number;
  /**
   * The informed minimum: the fewest model runs a policy could spend knowing, at each decision, only
   * what had happened by then (never what the agent or CI will do next). fixloop's target.
   */
  informed: number;
  /** Why the informed minimum is what it is, in one line. */
  informedWhy: string;
  /** The real fixes there are to reach. */
  fixes: number;
  firstHead: string;
  world: WorldStep[];
  /**
   * The n-th run started for a head does `agent[head][n]` while that head is still the branch's
   * head; a run past the list, or for a head the branch has left, does nothing. An agent that never
   * fixes has a finite script: a person steps in after its last push.
   */
  agent: Record<string, AgentAction[]>;
  /** What fixloop is expected to do (shown under the table). */
  fixloop: string;
  /**
   * The base branch's head (`main`) and its checks, as GitHub holds them before the lifecycle starts;
   * default one green `test`.
   */
  base?: Job[];
  /**
   * What the n-th re-run of a head's failed jobs (rerun-failed-jobs, asked by fixloop) reports:
   * `reruns[head][n]`, the re-run jobs only. Past the list, the same failures again.
   */
  reruns?: Record<string, Job[][]>;
  /**
   * Issue 36: what fixloop's update of a head behind its base (GitHub's update-branch) makes: the
   * merge commit's label and what follows it. An update is the fix such a lifecycle is about.
   */
  updates?: Record<string, { to: string; then: WorldStep[] }>;
  /** The notice the lifecycle is about, when it is about one (shown beside PASS/FAIL, not part of it). */
  notice?: { reason: RegExp; what: string };
  /** Issue 36: the Work's rules per check (`works[].checks`); default none. */
  checks?: unknown[];
  /**
   * Issue 36: this many more pull requests of other agents on the same base, each head failing what the
   * first head fails (the poll reads them; their runs count with the lifecycle's). Default none.
   */
  alsoHeld?: number;
}

// ---------------------------------------------------------------- building blocks
export const ok = (name: string): Job => ({ name, conclusion: 'success' });
/** A failed job; an output of `null` is a job that reported nothing (GitHub Actions' usual summary). */
export const fail = (name: string, output: string | null): Job =>
  output === null ? { name, conclusion: 'failure' } : { name, conclusion: 'failure', output };
export const ci = (
  head: string,
  jobs: Job[],
  o: Partial<
    Pick<CiStep, 'workflow' | 'progress' | 'redeliver' | 'rerun' | 'awaitingApproval' | 'approved' | 'bursts'>
  > = {},
): CiStep => ({ kind: 'ci', head, workflow: 'CI', jobs, ...o });
export const NOTHING: AgentAction = { kind: 'nothing' };

/** One line of src/price.ts changed at line `at` (the hunk lands elsewhere when `at` differs: the same change). */
export const priceLine = (from: string, to: string, at: number): FakeCompareFile => ({
  path: 'src/price.ts',
  patch: `@@ -${at},3 +${at},3 @@ export function price(cart: Cart) {\n   const total = sum(cart);\n-  return ${from};\n+  return ${to};\n }`,
});
export const oneLine = (path: string, at: number, from: string, to: string): FakeCompareFile => ({
  path,
  patch: `@@ -${at},1 +${at},1 @@\n-${from}\n+${to}`,
});
export const added = (path: string, after: number, lines: string[]): FakeCompareFile => ({
  path,
  patch: `@@ -${after},0 +${after + 1},${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}`,
});
