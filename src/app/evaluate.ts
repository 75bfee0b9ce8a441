// The gate of the fix loop, kept at this path so its callers need no change: the steps are under
// app/gate/ (gate.ts reads them in order; decision 0059).
export { createEvaluator, type Evaluator } from './gate/gate.js';
export type {
  BaseChecks,
  EvaluateDeps,
  EvaluateLedger,
  EvaluationResult,
  LoopEvent,
  StoredLoopEvent,
} from './gate/ports.js';
// T2: the gate asks for re-runs through app/rerun.ts's port (optional: absent, the agent gets the failure).
export type { RerunOutcome, RerunRequest, RequestRerun } from './rerun.js';
