// `pr checks` (SPEC J1): every check run and commit status of a pull request's head, failing
// computed by the board's own rules (B3), and the log tails of the first five failing GitHub
// Actions jobs. A log that cannot be read is an error on its entry only (J2); a GitHub refusal
// of the pull request, its checks or its statuses fails the whole call (ProviderError).
import { verdictOfConclusion, verdictOfStatusState } from '../core/verdict.js';
import { localCommand, type LocalCommandReport } from '../core/local-command/index.js';
import { boundText } from '../core/bounded-text.js';
import { CI_JOB_APPS, ProviderError, type CommitStatusInfo, type ProviderPort } from './provider-port.js';

/** Logs fetched per call at most (J1). */
export const MAX_LOGS = 5;
/** Lines of each log tail: the default, and the most a caller may ask for (J2). */
export const LOG_LINES_DEFAULT = 200;
export const LOG_LINES_MAX = 2000;
/** A failing run's output shown at most (A1: CI text is bounded wherever it is shown). */
const OUTPUT_TITLE_CHARS = 300;
const OUTPUT_SUMMARY_CHARS = 4000;

/**
 * Reads the tail of a job log from its signed URL (src/github/job-log.ts in production). Declared
 * here so the use-case does not import the adapter; it may reject with anything, which is reported
 * on the entry (an error with a string `code` is shown as `code: message`).
 */
export type FetchLog = (url: string, opts: { lines: number }) => Promise<{ text: string; truncated: boolean }>;

export interface PrChecksDeps {
  host: Pick<ProviderPort, 'getPullRequest' | 'listCheckRuns' | 'listStatuses' | 'jobLogUrl' | 'readJobLog'>;
  fetchLog: FetchLog;
}

export interface PrChecksInput {
  /** owner/name */
  repository: string;
  number: number;
  /** Only the failing entries. */
  failingOnly: boolean;
  /** Lines of each log tail, 0–LOG_LINES_MAX; 0 fetches no logs. */
  logLines: number;
}

export interface LogExcerpt {
  lines: string[];
  truncated: boolean;
}

export interface CheckRunEntry {
  kind: 'check_run';
  name: string;
  status: string;
  conclusion: string | null;
  failing: boolean;
  url: string | null;
  /** The Actions job id (the check run id), for runs made by GitHub Actions. */
  jobId?: number;
  log?: LogExcerpt;
  logError?: string;
  /** A failing run's own output (title and summary, bounded), as its app reported it. */
  output?: { title: string | null; summary: string | null };
  /** J3: the failing tests the log names and the one command that reruns exactly those. */
  localCommand?: LocalCommandReport;
}

export interface StatusEntry {
  kind: 'status';
  name: string;
  /** `pending` until the status has a verdict, then `completed`, like a check run's. */
  status: 'pending' | 'completed';
  state: CommitStatusInfo['state'];
  description: string | null;
  failing: boolean;
  url: string | null;
}

export type CheckEntry = CheckRunEntry | StatusEntry;

export interface PrChecksResult {
  repository: string;
  number: number;
  headSha: string;
  entries: CheckEntry[];
}

export async function prChecks(deps: PrChecksDeps, input: PrChecksInput): Promise<PrChecksResult> {
  const repository = input.repository.toLowerCase();
  const pr = await deps.host.getPullRequest(repository, input.number);
  const [runs, statuses] = await Promise.all([
    deps.host.listCheckRuns(repository, pr.headSha),
    deps.host.listStatuses(repository, pr.headSha),
  ]);

  const runEntries: CheckRunEntry[] = runs.map((r) => ({
    kind: 'check_run',
    name: r.name,
    status: r.status,
    conclusion: r.conclusion,
    failing: verdictOfConclusion(r.conclusion) === 'red',
    url: r.detailsUrl,
    ...(r.appSlug !== null && CI_JOB_APPS.includes(r.appSlug) ? { jobId: r.id } : {}),
    ...(verdictOfConclusion(r.conclusion) === 'red' && (r.outputTitle || r.outputSummary)
      ? {
          output: {
            title: r.outputTitle ? boundText(r.outputTitle, OUTPUT_TITLE_CHARS) : null,
            summary: r.outputSummary ? boundText(r.outputSummary, OUTPUT_SUMMARY_CHARS) : null,
          },
        }
      : // A run the host counted as passed without succeeding (a GitLab job allowed to fail, skipped)
        // says what it was (src/gitlab/to-port.ts); a run that simply passed shows no output.
        r.passedAs
        ? { output: { title: boundText(r.passedAs, OUTPUT_TITLE_CHARS), summary: null } }
        : {}),
  }));
  const statusEntries: StatusEntry[] = statuses.map((s) => ({
    kind: 'status',
    name: s.context,
    status: s.state === 'pending' ? 'pending' : 'completed',
    state: s.state,
    description: s.description,
    failing: verdictOfStatusState(s.state) === 'red',
    url: s.targetUrl,
  }));

  if (input.logLines > 0) {
    const withLogs = runEntries.filter((e) => e.failing && e.jobId !== undefined).slice(0, MAX_LOGS);
    await Promise.all(withLogs.map((e) => attachLog(deps, repository, e, input.logLines)));
  }

  const entries: CheckEntry[] = [...runEntries, ...statusEntries];
  return {
    repository,
    number: input.number,
    headSha: pr.headSha,
    entries: input.failingOnly ? entries.filter((e) => e.failing) : entries,
  };
}

async function attachLog(deps: PrChecksDeps, repository: string, entry: CheckRunEntry, lines: number): Promise<void> {
  try {
    // Read as much of the tail as is kept: the runner's failure summary may sit above the lines shown.
    // GitLab serves its job trace itself; GitHub hands out a signed URL read without credentials.
    const tail =
      (await deps.host.readJobLog?.(repository, entry.jobId!, { lines: LOG_LINES_MAX })) ??
      (await deps.fetchLog(await deps.host.jobLogUrl(repository, entry.jobId!), { lines: LOG_LINES_MAX }));
    const all = tail.text === '' ? [] : tail.text.split('\n');
    entry.log = { lines: all.slice(-lines), truncated: tail.truncated || all.length > lines };
    const report = localCommand(tail.text);
    if (report) entry.localCommand = report;
  } catch (err) {
    entry.logError = describeError(err);
  }
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err instanceof ProviderError) return `${err.host} answered ${err.status}: ${err.message}`;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
}
