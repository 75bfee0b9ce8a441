// The `session` runner's decisions (SPEC R2, L1, I5; issue 35 item 4): what a vendor's session state
// means for the run it carries — still running, ended completed or failed, or waiting for a person —
// and the words its end is told in. A vendor's state is data it chose: unknown states keep the run
// running, so the per-run timeout, never a guess, ends a session that says nothing fixloop knows.
// Pure: no I/O, no clock (the elapsed time is a parameter).

/** What a vendor state means for the run. `needs_person`: the session waits for its user (Devin's `blocked`). */
export const SESSION_STATE_KINDS = ['running', 'completed', 'failed', 'needs_person'] as const;
export type SessionStateKind = (typeof SESSION_STATE_KINDS)[number];

/** A vendor's states, by what they mean; a state in no list is `running`. Compared case-sensitively. */
export interface SessionStateTable {
  readonly completed: readonly string[];
  readonly failed: readonly string[];
  readonly needsPerson: readonly string[];
}

/**
 * Devin API v1, `GET /v1/sessions/{id}` → `status_enum`: working, blocked, expired, finished,
 * suspend_requested(_frontend), resume_requested(_frontend), resumed. `blocked` is "waiting for user
 * input": the run ends and a person is told, rather than the loop waiting on a session that waits too.
 */
export const DEVIN_STATES: SessionStateTable = {
  completed: ['finished'],
  failed: ['expired'],
  needsPerson: ['blocked'],
};

/**
 * Devin API v3, `GET /v3/organizations/{org_id}/sessions/{devin_id}` → `status_detail`: working,
 * waiting_for_user, waiting_for_approval, finished, inactivity (asleep, waiting), error, user_request
 * (stopped by someone), and the billing ones (out_of_credits, out_of_quota, no_quota_allocation,
 * usage_limit_exceeded, org_usage_limit_exceeded, total_session_limit_exceeded, payment_declined).
 */
export const DEVIN_V3_STATES: SessionStateTable = {
  completed: ['finished'],
  failed: [
    'error',
    'user_request',
    'out_of_credits',
    'out_of_quota',
    'no_quota_allocation',
    'usage_limit_exceeded',
    'org_usage_limit_exceeded',
    'total_session_limit_exceeded',
    'payment_declined',
  ],
  needsPerson: ['waiting_for_user', 'waiting_for_approval', 'inactivity'],
};

/** Cursor cloud agents, `GET /v0/agents/{id}` → `status`: CREATING, RUNNING, FINISHED, ERROR, EXPIRED. */
export const CURSOR_STATES: SessionStateTable = {
  completed: ['FINISHED'],
  failed: ['ERROR', 'EXPIRED'],
  needsPerson: [],
};

export function sessionStateKind(state: string | null, table: SessionStateTable): SessionStateKind {
  if (state === null) return 'running';
  if (table.completed.includes(state)) return 'completed';
  if (table.failed.includes(state)) return 'failed';
  if (table.needsPerson.includes(state)) return 'needs_person';
  return 'running';
}

/** How a followed session ends its run: the run's state and the words its log and notice carry. */
export type SessionRunEnd =
  { kind: 'running' } | { kind: 'ended'; state: 'completed' | 'failed'; detail: string | null; needsPerson: boolean };

export interface SessionSeen {
  vendor: string;
  sessionId: string;
  /** The vendor's state as last read; null when none was read yet. */
  state: string | null;
  /**
   * Whether the session was seen running since the message was sent, or the state came as a change
   * (a vendor's webhook). Until then a terminal state may be the one from before the message.
   */
  fresh: boolean;
  /** How many reads in a row returned this same state. */
  sameReads: number;
  elapsedMs: number;
  timeoutMs: number;
}

/**
 * A session that was `finished` (or `blocked`) before fixloop's message may still say so for a moment
 * after it: a terminal state read before the session was seen running counts once it was read this
 * many times in a row (the vendor did not pick the message up, or did and ended in between).
 */
export const STALE_TERMINAL_READS = 3;

/**
 * The run's end for a session as last seen. A completed session ends the run completed (with no
 * words: the sign of life decides the rest); a failed one, or one waiting for its user, ends it failed
 * with the vendor's words; a session still running past the run's timeout ends it failed, said so.
 */
export function sessionRunEnd(seen: SessionSeen, table: SessionStateTable): SessionRunEnd {
  const read = sessionStateKind(seen.state, table);
  const kind = read !== 'running' && !seen.fresh && seen.sameReads < STALE_TERMINAL_READS ? 'running' : read;
  const who = `the ${seen.vendor} session ${seen.sessionId}`;
  switch (kind) {
    case 'completed':
      return { kind: 'ended', state: 'completed', detail: null, needsPerson: false };
    case 'failed':
      return { kind: 'ended', state: 'failed', detail: `${who} ended ${seen.state}`, needsPerson: false };
    case 'needs_person':
      return {
        kind: 'ended',
        state: 'failed',
        detail: `${who} is waiting for a person (${seen.state}): answer it in ${seen.vendor}, then resume`,
        needsPerson: true,
      };
    case 'running':
      if (seen.elapsedMs < seen.timeoutMs) return { kind: 'running' };
      return {
        kind: 'ended',
        state: 'failed',
        detail:
          `${who} had not finished after ${minutes(seen.timeoutMs)} ` +
          `(last state ${seen.state === null ? 'unknown' : JSON.stringify(seen.state)}); fixloop stopped following it`,
        needsPerson: false,
      };
    default: {
      const never: never = kind;
      throw new Error(`unknown session state kind ${String(never)}`);
    }
  }
}

function minutes(ms: number): string {
  const m = ms / 60_000;
  return m >= 1 && Number.isInteger(m) ? `${m} minute${m === 1 ? '' : 's'}` : `${Math.round(ms / 1000)} s`;
}

/**
 * RFC 6901 JSON pointer into a parsed document: `''` is the whole, `/a/0/b` walks objects and arrays,
 * `~1` is `/` and `~0` is `~`. Undefined when the path is not there.
 */
export function readPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  if (!pointer.startsWith('/')) return undefined;
  let at: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(at)) {
      if (!/^(0|[1-9]\d*)$/.test(key)) return undefined;
      at = at[Number(key)];
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, key)) {
      at = (at as Record<string, unknown>)[key];
    } else return undefined;
  }
  return at;
}

/** The vendor's state at `pointer`: a string, or a number said as one; null when absent or another type. */
export function stateAt(doc: unknown, pointer: string): string | null {
  const v = readPointer(doc, pointer);
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** Spend at `pointer` times `dollarsPerUnit`, in US dollars; null when absent, negative or not a number. */
export function spendAt(doc: unknown, pointer: string, dollarsPerUnit: number): number | null {
  const n = unitsAt(doc, pointer);
  return n === null ? null : n * dollarsPerUnit;
}

/** The number at `pointer` (a vendor's own unit, e.g. Devin's ACUs); null when absent, negative or not a number. */
export function unitsAt(doc: unknown, pointer: string): number | null {
  const v = readPointer(doc, pointer);
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return !Number.isFinite(n) || n < 0 ? null : n;
}

/**
 * Decision 0074: a run's share of a session's cumulative usage (Devin's `acus_consumed` counts the
 * whole session, which outlives each run), and what it is in US dollars at `dollarsPerUnit` — null
 * when no price is configured: the units are then told in the run's log, never guessed into dollars.
 */
export function runUsage(
  before: number | null,
  after: number | null,
  dollarsPerUnit: number | null,
  unit: string,
  vendor: string,
): { dollars: number | null; words: string } | null {
  if (before === null || after === null) return null;
  const used = Math.max(0, after - before);
  const amount = `${Number(used.toFixed(4))} ${unit}${used === 1 ? '' : 's'}`;
  if (dollarsPerUnit === null)
    return {
      dollars: null,
      words: `${vendor} reported ${amount} used by this run (not counted as spend: no price per ${unit} is configured)`,
    };
  return {
    dollars: used * dollarsPerUnit,
    words: `${amount} at $${dollarsPerUnit} per ${unit}, reported by ${vendor}`,
  };
}
