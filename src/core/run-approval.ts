// Issue 35 item 2 with T3: a check waiting for a person's approval is, as a rule, a person's to clear
// (`approval_required`). One case is fixloop's: the agent it woke by a mention pushed, and the host
// holds that push's workflow runs until someone approves them (Copilot's pushes, by default). Left
// alone, "wait for CI" waits for ever. fixloop approves them only when the configuration says so, only
// for a head pushed after one of its own attempts, and never for a fork's pull request, whose code
// would then run with the repository's secrets.

export interface RunApprovalInput {
  /** The mention runner's `approveWorkflows`: a person allowed fixloop to approve its agent's runs. */
  allowed: boolean;
  /** The pull request's head lives in another repository. */
  fork: boolean;
  /** The head whose runs wait for approval. */
  headSha: string;
  /** The heads fixloop's earlier attempts answered, oldest first. */
  answeredHeads: readonly (string | null)[];
}

export type RunApproval = { kind: 'approve' } | { kind: 'person'; why: string };

export function decideRunApproval(input: RunApprovalInput): RunApproval {
  if (!input.allowed) return { kind: 'person', why: 'approving runs is not enabled (runner.approveWorkflows)' };
  if (input.fork) return { kind: 'person', why: "a fork's runs are never approved by fixloop" };
  const answered = input.answeredHeads.filter((h): h is string => h !== null);
  if (answered.length === 0) return { kind: 'person', why: 'no attempt of fixloop came before this head' };
  if (answered.includes(input.headSha))
    return { kind: 'person', why: 'this head was there before the agent was woken, so it is not its push' };
  return { kind: 'approve' };
}
