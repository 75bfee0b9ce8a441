// A head against its base (issue 36 §2): a pull request whose head conflicts with its base needs the
// agent, which merges or rebases and resolves; one that is only behind a base that requires
// up-to-date branches needs no model run, since the host's own "update branch" (GitHub) or rebase
// (GitLab) brings it up to date. Each is keyed on the head it is about, so it is answered once per
// head and never loops: a new head is a new question. Pure: the host's merge state is a parameter.

/**
 * The host's merge state words that mean the head conflicts with its base: GitHub's
 * `mergeable_state` (and GraphQL's mergeStateStatus, lower-cased) `dirty`, GitLab's
 * `detailed_merge_status` `conflict`.
 */
const CONFLICT_STATES: readonly string[] = ['dirty', 'conflict'];

/**
 * The words that mean the head is only behind a base that requires up-to-date branches: GitHub's
 * `behind`, GitLab's `need_rebase` (a fast-forward merge method). Anything else (clean, blocked,
 * unstable, unknown, checking, null while the host computes it) asks nothing of the loop.
 */
const BEHIND_STATES: readonly string[] = ['behind', 'need_rebase'];

export type BranchSync =
  | { kind: 'none' }
  /** The agent is asked to merge or rebase onto the base and resolve: one attempt for this head. */
  | { kind: 'conflict'; coordinate: string }
  /** fixloop updates the branch through the host, no model run: one update for this head. */
  | { kind: 'behind'; coordinate: string }
  /** Behind, but the Work turned branch updates off: left to a person (or to the next push). */
  | { kind: 'update_off' };

export interface BranchSyncInput {
  /** The merge state as the host last reported it for `headSha`; null when not (yet) known. */
  mergeableState: string | null | undefined;
  /** The pull request's head the state is about. */
  headSha: string;
  /** The Task's head as the ledger holds it: a state about any other commit is stale. */
  taskHeadSha: string | null;
  /** The Work's switch (`works[].updateBranch`, default on). */
  updateBranch: boolean;
}

/** The coordinate an attempt answering a conflicting head claims (unique per Task with it, C2). */
export const conflictCoordinate = (headSha: string): string => `conflict:${headSha.toLowerCase()}`;
/** The coordinate of fixloop's update of a head that is behind its base. */
export const branchUpdateCoordinate = (headSha: string): string => `update:${headSha.toLowerCase()}`;

export function branchSync(input: BranchSyncInput): BranchSync {
  const state = input.mergeableState?.toLowerCase() ?? null;
  if (state === null) return { kind: 'none' };
  // A state read for another commit than the Task's head says nothing about the head (B5).
  if (input.taskHeadSha === null || input.taskHeadSha.toLowerCase() !== input.headSha.toLowerCase())
    return { kind: 'none' };
  if (CONFLICT_STATES.includes(state)) return { kind: 'conflict', coordinate: conflictCoordinate(input.headSha) };
  if (BEHIND_STATES.includes(state))
    return input.updateBranch
      ? { kind: 'behind', coordinate: branchUpdateCoordinate(input.headSha) }
      : { kind: 'update_off' };
  return { kind: 'none' };
}
