// Row types of fixloop's database, shared by SQLite and PostgreSQL through Kysely.
// Times are ISO-8601 text (they order correctly as strings); booleans are 0/1 integers on both.
import type { Generated } from 'kysely';

export interface SettingsTable {
  key: string;
  value: string;
}

export interface EventsTable {
  id: Generated<number>;
  identity: string; // unique: the dedupe story (A3)
  kind: string; // ci.result, pr.changed, review.submitted, comment (0025 renamed the github.* kinds)
  event_name: string;
  delivery_id: string;
  repository: string | null;
  sha: string | null;
  verdict: string | null;
  summary: string; // the classified event as JSON
  payload: string; // the raw delivery body, exactly as signed
  received_at: string;
}

export interface PendingEventsTable {
  event_id: number;
}

export interface DecisionsTable {
  id: Generated<number>;
  delivery_id: string | null;
  event_name: string | null;
  identity: string | null;
  event_id: number | null;
  task_id: number | null;
  attempt_id: number | null;
  outcome: string;
  reason: string | null;
  detail: string | null;
  at: string;
}

export interface TasksTable {
  id: Generated<number>;
  work: string;
  repository: string;
  pr_number: number;
  branch: string;
  state: string;
  pr_state: string;
  branch_state: string;
  is_fork: number;
  ci_head_sha: string | null;
  ci_head_seen_at: string | null;
  ci_state: string;
  notice_at: string | null;
  resume_ref: string | null;
  created_at: string;
  updated_at: string;
  polled_at: string | null;
  poll_lease_until: string | null;
  stop_round: Generated<number>;
  extra_attempts: Generated<number>;
  approve_one_pending: Generated<number>;
  parked_at: string | null;
  handoff_at: string | null;
  state_comment_id: string | null;
  adopted: Generated<number>;
  gate: string | null;
  human_at: string | null;
  /** M4: a person turned the loop off for this Task (0011). */
  loop_off: Generated<number>;
  /** Migration 0013: the pull request carries `fixloop:skip`. */
  skip_label: Generated<number>;
  /** Migration 0031: the head fixloop last put back in the merge queue (issue 36), at most once each. */
  requeued_head?: string | null;
  /** Migration 0014: the `fixloop` commit status last written, `sha state:description`. */
  commit_status: string | null;
  /** Migration 0016: what the poll last saw of the pull request (src/ledger/poll-state.ts). */
  poll_signature: string | null;
  /** Migration 0018: the branch the pull request merges into (T1), as the poll or a webhook last showed it. */
  base_ref: string | null;
  /** Migration 0020: the Task's own cap on grants of one more attempt (V4), set by a person; null = configured. */
  max_grants: Generated<number | null>;
  /** Migration 0023: when the poll last wrote `passing` for the head, and that head (V1, Results). */
  green_at: Generated<string | null>;
  green_sha: Generated<string | null>;
  /** Migration 0024: the pull request's title and author as the poll last read them (issue 33). */
  pr_title: Generated<string | null>;
  pr_author: Generated<string | null>;
}

export interface RunsTable {
  id: Generated<number>;
  task_id: number;
  action: string;
  auto_resume: number;
  state: string;
  attempt_id: number | null;
  token_hash: string | null;
  exit_code: number | null;
  log: string;
  created_at: string;
  updated_at: string;
  /** Where a command runner's agent runs, JSON of a ProcessMark (migration 0005); null for other runners. */
  process: string | null;
  /** When the run's agent first called fixloop with its run token (migration 0010); null: never. */
  agent_seen_at: string | null;
  /** V4: when a shutdown or a crash interrupted the run (migration 0021); null: it was not. */
  interrupted_at: Generated<string | null>;
  /** V4: which offer of its attempt this run is, 0 then 1 after a free re-offer (migration 0021). */
  offer: Generated<number>;
  /** Issue 35: what a remote runner's run is called where it runs (a workflow run id; migration 0026). */
  external_ref: Generated<string | null>;
}

export interface AttemptsTable {
  id: Generated<number>;
  task_id: number;
  coordinate: string;
  source: string;
  head_sha: string | null;
  fingerprint: string;
  status: string;
  rejection_id: number | null;
  run_id: number | null;
  detail: string | null;
  created_at: string;
  updated_at: string;
  state: Generated<string>;
  outcome: string | null;
  outcome_reason: string | null;
  outcome_at: string | null;
  action_taken_at: string | null;
  baseline: string | null;
  diff_hash: string | null;
  retry_of: number | null;
  /** V4: how often a restart interrupted this attempt's run and it was offered again free (migration 0021). */
  interruptions: Generated<number>;
}

export interface SpendsTable {
  id: Generated<number>;
  task_id: number;
  run_id: number | null;
  model: number;
  sandbox: number;
  note: string | null;
  created_at: string;
}

export interface CiUsageTable {
  task_id: number;
  head_sha: string;
  minutes: number;
}

export interface RejectionsTable {
  id: Generated<number>;
  task_id: number;
  source: string;
  head_sha: string | null;
  check_name: string | null;
  body: string;
  event_id: number | null;
  /** JSON of the review's Author (core/standing.ts); null for a gate row or one stored before 0009. */
  author: string | null;
  created_at: string;
  /** Issue 36: a bot round's findings fingerprint (core/bot-findings.ts); null for any other row, or one stored before 0029. */
  findings: string | null;
  /** JSON of the merge queue a red of the queue's commit failed in (core/merge-queue.ts); null otherwise (0031). */
  merge_queue?: string | null;
}

export interface NoticesTable {
  id: Generated<number>;
  task_id: number; // unique with round: one notice per Task per stop (G1)
  round: Generated<number>;
  reason: string;
  head_sha: string | null;
  attempts_used: number;
  message: string;
  created_at: string;
}

/** G1/P4: one delivery of a notice to one configured sink (0012; decision 0025). */
export interface NoticeOutboxTable {
  id: Generated<number>;
  notice_id: number; // unique with sink
  sink: string;
  state: string; // pending | delivered | failed
  attempts: Generated<number>;
  next_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** One re-run of a head's failed jobs, claimed before it is asked of GitHub (migration 0015; decision 0030). */
export interface RerunsTable {
  id: Generated<number>;
  task_id: number; // unique with head_sha and ordinal: the claim
  head_sha: string;
  /** 1 for the head's first re-run, up to the per-head budget. */
  ordinal: number;
  /** JSON list of the check run (job) ids whose failure asked for it. */
  check_run_ids: string;
  reason: string;
  status: string; // claimed | waiting | requested | refused | unconfirmed
  /** JSON list of the workflow run ids asked to re-run; null until known. */
  workflow_run_ids: string | null;
  /** GitHub's HTTP status for a refused or unconfirmed request. */
  http_status: number | null;
  detail: string | null;
  created_at: string;
  updated_at: string;
}

export interface Database {
  settings: SettingsTable;
  events: EventsTable;
  pending_events: PendingEventsTable;
  decisions: DecisionsTable;
  tasks: TasksTable;
  runs: RunsTable;
  attempts: AttemptsTable;
  rejections: RejectionsTable;
  notices: NoticesTable;
  notice_outbox: NoticeOutboxTable;
  spends: SpendsTable;
  ci_usage: CiUsageTable;
  reruns: RerunsTable;
  github_etags: GithubEtagsTable;
  base_holds: BaseHoldsTable;
  dashboard_sessions: DashboardSessionsTable;
  base_reds: BaseRedsTable;
  base_red_pulls: BaseRedPullsTable;
  base_red_outbox: BaseRedOutboxTable;
}

/** Migration 0022: a dashboard sign-in (M4, decision 0046), keyed by a hash of its cookie's secret. */
export interface DashboardSessionsTable {
  secret_hash: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** Migration 0019: a red result held back because the base failed its check too (T1); `result_key` is check and run. */
export interface BaseHoldsTable {
  task_id: number;
  head_sha: string;
  result_key: string;
  base_ref: string;
  created_at: string;
}

/** Migration 0016: GitHub's answers to conditional requests, by request (decision 0031). */
export interface GithubEtagsTable {
  key: string;
  etag: string;
  /** The answer as the adapter maps it, JSON. */
  value: string;
  stored_at: string;
}

/** Migration 0028: one red round of a repository's base branch, told once (issue 36, decision 0069). */
export interface BaseRedsTable {
  id: Generated<number>;
  repository: string; // unique with base_ref and round
  base_ref: string;
  round: number;
  /** JSON list of the checks failing on the base that held pull requests. */
  checks: string;
  base_sha: string | null;
  message: string;
  /** The issue filed on the repository for it (the Work's `baseIssue`); null for none. */
  issue_number: number | null;
  opened_at: string;
  closed_at: string | null;
}

/** Migration 0028: a pull request (its Task) held by a red base round. */
export interface BaseRedPullsTable {
  red_id: number;
  task_id: number;
  joined_at: string;
}

/** Migration 0033 (decision 0075): a red base's notice, opened or healed, to each notice sink. */
export interface BaseRedOutboxTable {
  id: Generated<number>;
  red_id: number; // unique with event and sink
  event: string; // opened | healed
  message: string;
  sink: string;
  state: string; // pending | delivered | failed
  attempts: Generated<number>;
  next_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}
