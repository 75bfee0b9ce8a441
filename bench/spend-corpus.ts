// The spend benchmark's corpus: pull-request lifecycles as data. Each is what the world does (CI
// results, reviews, pushes nobody resumed anyone for, what a re-run of failed jobs turns up) and what
// the agent does in each run it is resumed for, with two minimums: the oracle, the fewest model runs
// that reach the fix with this agent (0 when no run can fix it), and the informed minimum, the fewest
// a policy could spend knowing at each decision only what had happened by then (issue 17).
// bench/spend-world.ts turns a lifecycle into GitHub deliveries; bench/spend.ts replays it through
// fixloop and the naive policies.
//
// The lifecycles are grouped in bench/spend-lifecycles-pr.ts and bench/spend-lifecycles-triage.ts;
// what one is, in bench/spend-lifecycle.ts.
import type { Lifecycle } from './spend-lifecycle.js';
import {
  matrixStorm,
  flaky,
  fixTheFix,
  unchanged,
  editsTest,
  staleHead,
  reviewRounds,
  noOutcome,
} from './spend-lifecycles-pr.js';
import {
  matrixUnchanged,
  matrixHalfFixed,
  runnerLost,
  redOnBase,
  redOnBaseRearmed,
  approvalGate,
  noCi,
  emptyTwice,
} from './spend-lifecycles-triage.js';
import { ruledToPerson } from './spend-lifecycles-rules.js';
import { conflict, behindBranch } from './spend-lifecycles-branch.js';
import { redBaseManyPulls } from './spend-lifecycles-base.js';
import { queueEjection, queueConflict } from './spend-lifecycles-queue.js';

export type {
  Job,
  CiStep,
  ReviewStep,
  PushStep,
  BaseStep,
  WorldStep,
  AgentPush,
  AgentAction,
  Lifecycle,
} from './spend-lifecycle.js';

export const CORPUS: readonly Lifecycle[] = [
  matrixStorm,
  flaky,
  fixTheFix,
  unchanged,
  editsTest,
  staleHead,
  reviewRounds,
  noOutcome,
  ...[1, 2, 3, 4, 5].map(matrixUnchanged),
  matrixHalfFixed,
  runnerLost,
  redOnBase,
  redOnBaseRearmed,
  approvalGate,
  noCi,
  emptyTwice,
  ruledToPerson,
  conflict,
  behindBranch,
  redBaseManyPulls,
  queueEjection,
  queueConflict,
];
