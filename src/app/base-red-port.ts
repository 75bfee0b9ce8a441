// What the ledger keeps of a red base told once (issue 36 item 4, decision 0069): its rounds and the
// pull requests each holds. Part of the Ledger (ledger-port.ts), declared apart to keep that file short.
/** Issue 36 item 4: a base branch's red round, told once to the pull requests it holds (decision 0069). */
export interface BaseRed {
  id: number;
  repository: string;
  baseRef: string;
  round: number;
  /** The checks failing on the base that held pull requests, sorted. */
  checks: string[];
  baseSha: string | null;
  message: string;
  issueNumber: number | null;
  openedAt: string;
  closedAt: string | null;
  /** The pull requests it holds, by number, in the order they joined. */
  pullRequests: number[];
}

export interface BaseRedStore {
  /**
   * The pull request (its Task) held by a red base joins the base's open round; when none is open it
   * opens the next, unique per (repository, base branch, round), so of any number of replicas one
   * files it (`filed`). The round's checks grow with the checks that held later pull requests.
   */
  joinBaseRed(input: {
    repository: string;
    baseRef: string;
    checks: readonly string[];
    baseSha: string | null;
    taskId: number;
    message: string;
  }): Promise<{ red: BaseRed; filed: boolean }>;
  /** Records the issue filed for the round (once: only where none is recorded yet). */
  setBaseRedIssue(id: number, issueNumber: number): Promise<boolean>;
  /** The rounds not closed yet, oldest first (bounded by `limit`). */
  openBaseReds(limit: number): Promise<BaseRed[]>;
  /** Closes the round by compare-and-set: true for the one caller that closed it. */
  closeBaseRed(id: number): Promise<boolean>;
}
