// A Task's story (SPEC M4, V2; issue 33): its deliveries and their decisions, reds, attempts with their
// runs, spend and logs, and its notice, in causal order and grouped by the head commit they were about,
// each in words, with the ledger's identifiers kept aside for a "details" toggle. Bounded: the newest
// TIMELINE_DECISIONS decision rows, run logs and failure bodies cut to their head and tail, so one noisy
// Task cannot make the page megabytes long. Also the header's facts: the failure to fix now.
import type { Ledger, RunFacts } from '../app/ledger-port.js';
import { boundText } from '../core/bounded-text.js';
import { STOP_WHY } from '../core/notice.js';
import { STOP_REASONS, type StopReason } from '../core/reasons.js';
import type { Notice, Rejection, Task } from '../core/types.js';
import { failureExcerpt, failureLine, redOfDelivery } from '../core/failure-line.js';

export const TIMELINE_DECISIONS = 300;
const LOG_CHARS = 4000;
const BODY_CHARS = 2000;

export type TimelineLedger = Pick<
  Ledger,
  | 'getTask'
  | 'listDecisions'
  | 'listAttempts'
  | 'listRuns'
  | 'listRejections'
  | 'getNotice'
  | 'getRunLog'
  | 'runFacts'
  | 'lastRedEvent'
>;

export interface TimelineEntry {
  at: string;
  kind: 'decision' | 'rejection' | 'attempt' | 'run' | 'notice' | 'registration';
  title: string;
  /** The reason, in words. */
  words: string | null;
  /** Longer text shown folded: a run's log (as text), a failure's body. */
  text: string | null;
  /** A run that can still be cancelled. */
  cancellableRunId?: number;
  /** The head commit this entry is about (full sha), when known. */
  head?: string | null;
  /** The ledger's identifiers (delivery ids, fingerprints, coordinates), shown behind "details". */
  ids?: string | null;
  /** An attempt's facts: when its run started, how long it took, what it spent. */
  facts?: { start: string; durationMs: number | null; spend: number | null; outcome: string | null } | null;
}

/** The entries about one head commit, in causal order. */
export interface StoryGroup {
  head: string | null;
  entries: TimelineEntry[];
}

/** The failure a person handed the Task should fix now. */
export interface FailureNow {
  checkName: string | null;
  line: string;
  headSha: string | null;
  /** It stopped the loop (the notice's head), rather than being the newest red. */
  stopping: boolean;
  /** The failing job's page on the host, when the red's delivery named it. */
  url?: string | null;
}

export interface TaskStory {
  task: Task;
  entries: TimelineEntry[];
  groups: StoryGroup[];
  interrupted: boolean;
  attemptsUsed: number;
  notice: Notice | null;
  failureNow: FailureNow | null;
  /** A run of the agent in flight, the one "Cancel" would end. */
  runningRunId: number | null;
}

/** A reason code in words: the stop reasons have sentences; every other code reads as its words. */
export function reasonWords(reason: string | null): string | null {
  if (reason === null) return null;
  if ((STOP_REASONS as readonly string[]).includes(reason)) return STOP_WHY[reason as StopReason];
  return reason.replaceAll('_', ' ');
}

/** What an agent reported for its attempt, in words. */
const OUTCOME_WORDS: Record<string, string> = {
  action_taken: 'the agent says it pushed a fix',
  non_actionable: 'the agent says there is nothing it can fix',
  blocked: 'the agent says it is blocked',
};

/** Where an attempt's lifecycle stands, in words. */
const ATTEMPT_STATE_WORDS: Record<string, string> = {
  queued: 'waiting to start',
  running: 'the agent is working on it',
  awaiting_progress: 'waiting for the fix to show on the pull request',
  acknowledged: 'a new commit arrived after it',
  retryable: 'ended without an answer; it may be offered again',
};

/** Where a failure came from, in words. */
const SOURCE_WORDS: Record<string, string> = {
  gate: 'CI went red',
  review: 'A review asked for changes',
  bot: "A bot's review asked for changes",
  conflict: 'The branch conflicts with its base',
  branch_update: 'The branch fell behind its base',
};

/** What the poll or a delivery decided, in words (the common ones; others read as their code's words). */
const DECISION_WORDS: Record<string, string> = {
  claimed: 'The loop took this red on: an attempt was claimed',
  dispatched: "The agent's run was handed to the runner",
  reported: 'The agent reported back',
  stored: 'A result from CI arrived',
  duplicate: 'The same delivery arrived again and was ignored',
  dropped: 'A check that had not finished yet arrived; the loop waits for its result',
  ignored: 'A delivery with nothing for the loop arrived',
  refused: 'The loop did not resume the agent',
  noticed: 'The loop stopped and filed a notice for a person',
  failed: 'Something went wrong; nothing further was sent',
  rerun: "The head's failed jobs were re-run first",
  reopened: 'The approval the loop waited for was given',
  updated: 'fixloop updated the branch from its base (no agent ran)',
  rejected: 'A delivery could not be read',
};

/** A decision's detail that only names the ledger's own rows (shown behind "details", not in the story). */
const LEDGER_TALK = /\b(coordinate|fingerprint|delivery [0-9a-f-]{8,}|run \d+|notice \d+|attempt \d+)\b/;

/**
 * A run's log as text: the lines a JSON-speaking agent writes (stream-json, JSON lines) become their
 * text fields; other lines stay as they are. Bounded by the caller.
 */
export function logAsText(log: string): string {
  const out: string[] = [];
  for (const line of log.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) {
      if (t) out.push(line);
      continue;
    }
    try {
      const said = textOf(JSON.parse(t));
      if (said) out.push(said);
    } catch {
      out.push(line);
    }
  }
  return out.join('\n');
}

function textOf(v: unknown, depth = 0): string {
  if (depth > 4 || v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v))
    return v
      .map((x) => textOf(x, depth + 1))
      .filter(Boolean)
      .join('\n');
  if (typeof v !== 'object') return '';
  const o = v as Record<string, unknown>;
  for (const k of ['text', 'result', 'message', 'content', 'msg', 'line', 'output']) {
    const said = textOf(o[k], depth + 1);
    if (said) return said;
  }
  return '';
}

/** Rows of the same millisecond in the order they happen: the delivery, the red, the decision, the attempt, its run, the notice. */
const CAUSAL: Record<TimelineEntry['kind'], number> = {
  registration: 0,
  decision: 2,
  rejection: 1,
  attempt: 3,
  run: 4,
  notice: 5,
};

export async function taskTimeline(ledger: TimelineLedger, id: number): Promise<TaskStory | null> {
  const task = await ledger.getTask(id);
  if (!task) return null;
  const [decisions, attempts, runs, rejections, notice, facts] = await Promise.all([
    ledger.listDecisions({ taskId: id, limit: TIMELINE_DECISIONS }),
    ledger.listAttempts(id),
    ledger.listRuns(id),
    ledger.listRejections(id),
    ledger.getNotice(id),
    ledger.runFacts(id).catch((): RunFacts[] => []),
  ]);
  const logs = await Promise.all(runs.map((r) => ledger.getRunLog(r.id)));
  const factOf = new Map(facts.map((f) => [f.runId, f]));
  const attemptOf = new Map(attempts.map((a) => [a.id, a]));
  const rows: Array<TimelineEntry & { order: number; seq: number; sortAt: string }> = [];
  const push = (e: TimelineEntry, seq: number, sortAt = e.at, order = CAUSAL[e.kind]) =>
    rows.push({ ...e, order, seq, sortAt });

  for (const d of decisions) {
    const isDelivery = d.deliveryId !== null;
    // The notice's own entry tells the stop: its decision row would say it twice.
    if (d.outcome === 'noticed' && notice) continue;
    // The claim comes just before its attempt, the hand-over to the runner just before its run.
    const attempt = d.attemptId !== null ? attemptOf.get(d.attemptId) : undefined;
    const run = attempt?.runId ? runs.find((r) => r.id === attempt.runId) : undefined;
    const sortAt =
      d.outcome === 'claimed' && attempt ? attempt.createdAt : d.outcome === 'dispatched' && run ? run.createdAt : d.at;
    const order = d.outcome === 'claimed' ? 2.5 : d.outcome === 'dispatched' ? 3.5 : CAUSAL.decision;
    push(
      {
        at: d.at,
        kind: 'decision',
        title:
          d.outcome === 'acted'
            ? `${personOf(d.detail)} acted: ${reasonWords(d.reason) ?? 'an action'}`
            : (DECISION_WORDS[d.outcome] ?? d.outcome.replaceAll('_', ' ')),
        words:
          d.outcome === 'acted'
            ? (d.detail?.replace(/^a person \([^)]*\): /, '') ?? null)
            : // The notice's own text is its entry's; the ledger's row names stay behind "details".
              [
                reasonWords(d.reason),
                d.outcome === 'noticed' || (d.detail && LEDGER_TALK.test(d.detail)) ? null : d.detail,
              ]
                .filter((x) => x)
                .join(' — ') || null,
        text: null,
        head: d.attemptId !== null ? (attemptOf.get(d.attemptId)?.headSha ?? null) : null,
        ids:
          [
            `decision ${d.id}`,
            d.deliveryId ? `delivery ${d.deliveryId}` : null,
            d.eventName ? `event ${d.eventName}` : null,
            d.reason ? `reason ${d.reason}` : null,
            d.attemptId ? `attempt ${d.attemptId}` : null,
            d.detail && LEDGER_TALK.test(d.detail) ? d.detail : null,
          ]
            .filter((x) => x)
            .join(' · ') || null,
      },
      d.id * 10 + (isDelivery ? 0 : 5),
      sortAt < d.at ? sortAt : d.at,
      order,
    );
  }
  for (const r of rejections)
    push(
      {
        at: r.createdAt,
        kind: 'rejection',
        title: `${SOURCE_WORDS[r.source] ?? 'A failure'}${r.checkName ? `: ${r.checkName}` : ''}`,
        words: failureLine(r.body) || null,
        text: boundText(r.body, BODY_CHARS),
        head: r.headSha,
        ids: `failure ${r.id}${r.headSha ? ` · head ${r.headSha}` : ''}`,
      },
      r.id,
    );
  for (const a of attempts) {
    const run = a.runId !== null ? runs.find((r) => r.id === a.runId) : undefined;
    const f = run ? factOf.get(run.id) : undefined;
    const ended = run && run.state !== 'queued' && run.state !== 'running';
    push(
      {
        at: a.createdAt,
        kind: 'attempt',
        title: `Attempt ${attempts.indexOf(a) + 1}: ${run ? (run.autoResume ? 'the agent was resumed automatically' : 'a person resumed the agent') : a.source === 'branch_update' ? 'fixloop updated the branch from its base, no agent run' : 'claimed, not yet started'}`,
        words:
          [
            ATTEMPT_STATE_WORDS[a.state] ?? a.state.replaceAll('_', ' '),
            a.outcome ? (OUTCOME_WORDS[a.outcome] ?? reasonWords(a.outcome)) : null,
            a.outcomeReason,
            a.interruptions > 0 ? 'interrupted by a restart once and offered again' : null,
          ]
            .filter((x) => x)
            .join(' — ') || null,
        text: null,
        head: a.headSha,
        ids: `attempt ${a.id} · ${a.status} · ${a.state} · fingerprint ${a.fingerprint} · coordinate ${a.coordinate}${a.runId ? ` · run ${a.runId}` : ''}`,
        facts: run
          ? {
              start: run.createdAt,
              durationMs: ended && f ? Math.max(0, Date.parse(f.updatedAt) - Date.parse(run.createdAt)) : null,
              spend: f ? f.spend : null,
              outcome: run.state,
            }
          : null,
      },
      a.id,
    );
  }
  runs.forEach((r, i) => {
    const attempt = r.attemptId !== null ? attemptOf.get(r.attemptId) : undefined;
    const f = factOf.get(r.id);
    const log = logs[i] ? boundText(logAsText(logs[i]!), LOG_CHARS) : null;
    const registration = r.action === 'start' && r.attemptId === null;
    push(
      {
        at: r.createdAt,
        kind: registration ? 'registration' : 'run',
        title: registration
          ? "Registered: fixloop follows this pull request from the agent's first run"
          : `${attempt ? 'The agent ran for this attempt' : r.autoResume ? 'The agent ran' : 'A person resumed the agent with a message'}: ${runStateWords(r.state)}`,
        words:
          [
            r.interruptedAt ? 'interrupted by a restart: its attempt will be offered again, once, free' : null,
            f && f.exitCode !== null && r.state !== 'running' ? `exit code ${f.exitCode}` : null,
          ]
            .filter((x) => x)
            .join(' — ') || null,
        text: log || null,
        head: attempt?.headSha ?? null,
        ids: `run ${r.id} · ${r.action} · ${r.autoResume ? 'automatic' : "a person's"} · ${r.state}${r.attemptId ? ` · attempt ${r.attemptId}` : ''}`,
        ...(r.state === 'queued' || r.state === 'running' ? { cancellableRunId: r.id } : {}),
      },
      r.id,
    );
  });
  if (notice)
    push(
      {
        at: notice.createdAt,
        kind: 'notice',
        title: `The loop stopped and asked for a person after ${notice.attemptsUsed} attempt${notice.attemptsUsed === 1 ? '' : 's'}`,
        words: reasonWords(notice.reason),
        text: notice.message,
        head: notice.headSha,
        ids: `notice ${notice.id} · reason ${notice.reason}${notice.headSha ? ` · head ${notice.headSha}` : ''}`,
      },
      notice.id,
    );
  // Time order; in the same millisecond, causal order (the delivery, its red, the decision, the attempt, the run).
  const failure = await withDelivery(ledger, task, failureNow(task, rejections, notice), notice);
  // The red that stopped the loop, when it was never stored as a failure: told from its delivery.
  if (failure?.stopping && notice && !rejections.some((r) => r.headSha === failure.headSha))
    push(
      {
        at: notice.createdAt,
        kind: 'rejection',
        title: `CI went red${failure.checkName ? `: ${failure.checkName}` : ''}`,
        words: failure.line.split('\n')[0] ?? null,
        text: failure.line,
        head: failure.headSha,
        ids: failure.headSha ? `head ${failure.headSha}` : null,
      },
      0,
      notice.createdAt,
      CAUSAL.notice - 0.5,
    );
  rows.sort((a, b) => (a.sortAt < b.sortAt ? -1 : a.sortAt > b.sortAt ? 1 : a.order - b.order || a.seq - b.seq));
  const entries: TimelineEntry[] = rows.map(({ order: _o, seq: _s, sortAt: _a, ...e }) => e);

  // Grouped by head commit: an entry without a head of its own belongs with the one before it.
  const groups: StoryGroup[] = [];
  let head: string | null = null;
  for (const e of entries) {
    if (e.head) head = e.head;
    const last = groups.at(-1);
    if (last && (last.head === head || (e.head == null && last.head === head))) last.entries.push(e);
    else groups.push({ head, entries: [e] });
  }

  // V4: an attempt in flight whose run a restart interrupted is offered again by the next start.
  const runOf = new Map(runs.map((r) => [r.id, r]));
  const interrupted = attempts.some((a) => {
    const run = a.runId !== null ? runOf.get(a.runId) : undefined;
    return (
      (a.state === 'queued' || a.state === 'running') &&
      run?.interruptedAt != null &&
      run.state !== 'queued' &&
      run.state !== 'running'
    );
  });
  const running = runs.filter((r) => r.state === 'queued' || r.state === 'running').at(-1);
  return {
    task,
    entries,
    groups,
    interrupted,
    attemptsUsed: attempts.length,
    notice,
    failureNow: failure,
    runningRunId: running?.id ?? null,
  };
}

/**
 * The failure to fix now (issue 33): after a stop, the red of the head that stopped the loop, not the
 * first red; otherwise the current head's; else the newest. Its notice's text stands in when the
 * stopping red was never stored as a failure of its own.
 */
export function failureNow(task: Task, rejections: Rejection[], notice: Notice | null): FailureNow | null {
  const newestFor = (sha: string | null) =>
    sha === null
      ? undefined
      : rejections
          .filter((r) => r.headSha === sha)
          .sort((a, b) => b.id - a.id)
          .at(0);
  const of = (r: Rejection, stopping: boolean): FailureNow => ({
    checkName: r.checkName,
    line: failureExcerpt(r.body),
    headSha: r.headSha,
    stopping,
  });
  if (notice) {
    const r = newestFor(notice.headSha);
    if (r) return of(r, true);
  }
  const current = newestFor(task.ciHeadSha);
  if (current) return of(current, false);
  const newest = [...rejections].sort((a, b) => b.id - a.id).at(0);
  return newest ? of(newest, false) : null;
}

/**
 * The stopping red is often never stored as a failure of its own (the loop stopped before an attempt):
 * its delivery, kept as signed, says what failed and links the failing job. Also the job's link for a
 * stored failure. Deliveries that cannot be read leave the failure as it was.
 */
async function withDelivery(
  ledger: TimelineLedger,
  task: Task,
  found: FailureNow | null,
  notice: Notice | null,
): Promise<FailureNow | null> {
  const stoppingHead = notice?.headSha ?? null;
  const missing = stoppingHead !== null && found?.headSha !== stoppingHead;
  const head = missing ? stoppingHead : (found?.headSha ?? task.ciHeadSha);
  if (!head) return found;
  const event = await ledger.lastRedEvent(task.repository, head).catch(() => null);
  const red = event ? redOfDelivery(event.payload) : null;
  if (!red) return found;
  if (missing)
    return {
      checkName: red.name,
      line: failureExcerpt(red.text) || red.text,
      headSha: head,
      stopping: true,
      url: red.url,
    };
  return found ? { ...found, url: red.url } : null;
}

function runStateWords(state: string): string {
  return (
    {
      queued: 'waiting to start',
      running: 'running now',
      question: 'it asked a question',
      completed: 'finished',
      failed: 'failed',
      cancelled: 'cancelled',
    }[state] ?? state
  );
}

/** "a person (dashboard): …" → "A person (dashboard)". */
function personOf(detail: string | null): string {
  const m = /^a person \(([^)]*)\)/.exec(detail ?? '');
  return m ? `A person (${m[1]})` : 'A person';
}
