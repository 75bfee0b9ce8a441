// A Task's timeline (SPEC M4): its deliveries and their decisions, rejections, attempts with their
// fingerprints and outcomes, runs with their logs, and its notice, merged in time order, each with
// its reason in words. Bounded: the newest TIMELINE_DECISIONS decision rows, run logs and rejection
// bodies cut to their head and tail, so one noisy Task cannot make the page megabytes long.
import type { Ledger } from '../app/ledger-port.js';
import { boundText } from '../core/bounded-text.js';
import { STOP_WHY } from '../core/notice.js';
import { STOP_REASONS, type StopReason } from '../core/reasons.js';
import type { Task } from '../core/types.js';

export const TIMELINE_DECISIONS = 300;
const LOG_CHARS = 4000;
const BODY_CHARS = 2000;

export type TimelineLedger = Pick<
  Ledger,
  'getTask' | 'listDecisions' | 'listAttempts' | 'listRuns' | 'listRejections' | 'getNotice' | 'getRunLog'
>;

export interface TimelineEntry {
  at: string;
  kind: 'decision' | 'rejection' | 'attempt' | 'run' | 'notice';
  title: string;
  /** The reason, in words. */
  words: string | null;
  /** Longer text shown folded: a run's log, a rejection's body. */
  text: string | null;
  /** A run that can still be cancelled. */
  cancellableRunId?: number;
}

/** A reason code in words: the stop reasons have sentences; every other code reads as its words. */
export function reasonWords(reason: string | null): string | null {
  if (reason === null) return null;
  if ((STOP_REASONS as readonly string[]).includes(reason)) return STOP_WHY[reason as StopReason];
  return reason.replaceAll('_', ' ');
}

export async function taskTimeline(
  ledger: TimelineLedger,
  id: number,
): Promise<{ task: Task; entries: TimelineEntry[]; interrupted: boolean } | null> {
  const task = await ledger.getTask(id);
  if (!task) return null;
  const [decisions, attempts, runs, rejections, notice] = await Promise.all([
    ledger.listDecisions({ taskId: id, limit: TIMELINE_DECISIONS }),
    ledger.listAttempts(id),
    ledger.listRuns(id),
    ledger.listRejections(id),
    ledger.getNotice(id),
  ]);
  const logs = await Promise.all(runs.map((r) => ledger.getRunLog(r.id)));
  const entries: TimelineEntry[] = [
    ...decisions.map((d): TimelineEntry => ({
      at: d.at,
      kind: 'decision',
      title: `${d.outcome}${d.eventName ? ` · ${d.eventName}` : ''}${d.deliveryId ? ` · delivery ${d.deliveryId}` : ''}`,
      words: [reasonWords(d.reason), d.detail].filter((x) => x).join(' — ') || null,
      text: null,
    })),
    ...rejections.map((r): TimelineEntry => ({
      at: r.createdAt,
      kind: 'rejection',
      title: `${r.source} rejection${r.checkName ? ` · ${r.checkName}` : ''}${r.headSha ? ` · ${r.headSha.slice(0, 12)}` : ''}`,
      words: null,
      text: boundText(r.body, BODY_CHARS),
    })),
    ...attempts.map((a): TimelineEntry => ({
      at: a.createdAt,
      kind: 'attempt',
      title: `attempt ${a.id} · ${a.status} · ${a.state} · fingerprint ${a.fingerprint.slice(0, 12)}`,
      words:
        [a.outcome ? `outcome: ${reasonWords(a.outcome)}` : null, a.outcomeReason].filter((x) => x).join(' — ') || null,
      text: null,
    })),
    ...runs.map((r, i): TimelineEntry => ({
      at: r.createdAt,
      kind: 'run',
      title: `run ${r.id} · ${r.action} · ${r.autoResume ? 'automatic' : "a person's"} · ${r.state}`,
      words:
        [
          r.attemptId ? `for attempt ${r.attemptId}` : null,
          r.interruptedAt ? 'interrupted by a restart (its attempt is offered again once, free)' : null,
        ]
          .filter((x) => x)
          .join(' — ') || null,
      text: logs[i] ? boundText(logs[i]!, LOG_CHARS) : null,
      ...(r.state === 'queued' || r.state === 'running' ? { cancellableRunId: r.id } : {}),
    })),
    ...(notice
      ? [
          {
            at: notice.createdAt,
            kind: 'notice' as const,
            title: `notice · ${notice.attemptsUsed} attempts used`,
            words: reasonWords(notice.reason),
            text: notice.message,
          },
        ]
      : []),
  ];
  // Time order; rows written in the same millisecond keep the order they were listed in.
  entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
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
  return { task, entries, interrupted };
}
