// The dashboard's open live-update streams (SPEC M4; A1, issue 31): a stream holds a connection for
// as long as its page is open, so they are counted. A session keeps at most a few — a new one ends
// that session's oldest, whose page is told and stops listening — and the server at most a few dozen
// in all; past that a new stream is refused (503) while the page itself still works. Decision 0045.

/** Tabs of one person's sign-in that update by themselves; a fifth takes over from the oldest. */
export const LIVE_STREAMS_PER_SESSION = 4;
/** Streams of all sessions together: far below the connection cap (512), a few for each of a team's people. */
export const LIVE_STREAMS_TOTAL = 64;

/** Why a stream was ended by the server rather than by its page. */
export type StreamEnd = 'superseded' | 'closing' | 'gone';

export interface LiveStream {
  /** Aborted, with a StreamEnd as its reason, when the stream must end. */
  readonly signal: AbortSignal;
  /** The stream ended (its page went away, or it finished): its place is given back. */
  end(): void;
}

export interface LiveStreams {
  /** A place for a new stream of `sessionId`, or null when every place of the server is taken. */
  open(sessionId: string): LiveStream | null;
  /** End every stream (shutdown). */
  closeAll(): void;
  /** How many are open now. */
  readonly size: number;
}

export function createLiveStreams(
  limits: { perSession: number; total: number } = { perSession: LIVE_STREAMS_PER_SESSION, total: LIVE_STREAMS_TOTAL },
): LiveStreams {
  // Each session's streams, oldest first (a Set keeps insertion order).
  const bySession = new Map<string, Set<AbortController>>();
  let size = 0;
  const release = (sessionId: string, ctl: AbortController, why: StreamEnd) => {
    const mine = bySession.get(sessionId);
    if (mine?.delete(ctl)) {
      size--;
      if (mine.size === 0) bySession.delete(sessionId);
    }
    if (!ctl.signal.aborted) ctl.abort(why);
  };
  return {
    open(sessionId) {
      const mine = bySession.get(sessionId) ?? new Set<AbortController>();
      if (mine.size >= limits.perSession) release(sessionId, mine.values().next().value!, 'superseded');
      else if (size >= limits.total) return null;
      const ctl = new AbortController();
      mine.add(ctl);
      bySession.set(sessionId, mine);
      size++;
      return { signal: ctl.signal, end: () => release(sessionId, ctl, 'gone') };
    },
    closeAll() {
      for (const [sessionId, mine] of [...bySession]) for (const ctl of [...mine]) release(sessionId, ctl, 'closing');
    },
    get size() {
      return size;
    },
  };
}

/** Wait `ms`, or less if `signal` is aborted first. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
