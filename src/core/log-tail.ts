// The tail of a CI job log, kept and rendered without I/O (SPEC J2): a fixed-size ring buffer so
// memory is bounded by what is kept whatever the log's length, and the rendering of what it holds
// into the last lines, with a marker when the read was cut. Each adapter streams its host's log into
// it (GitHub's signed URL, GitLab's job trace) and names how one of its lines is cleaned.

export const LOG_KEEP_BYTES = 256 * 1024;
export const LOG_MAX_BYTES = 32 * 1024 * 1024;
export const LOG_LINES_DEFAULT = 200;
export const LOG_LINES_MAX = 2000;
export const LOG_TIMEOUT_MS = 60_000;

/** A ring buffer holding the last `capacity` bytes written; its memory never grows past that. */
export class TailBuffer {
  private readonly ring: Buffer;
  private end = 0; // next write position
  private full = false;
  /** Bytes written that are no longer held. */
  dropped = 0;

  constructor(readonly capacity: number) {
    this.ring = Buffer.alloc(capacity);
  }

  write(chunk: Buffer): void {
    const cap = this.capacity;
    if (chunk.length >= cap) {
      this.dropped += this.held() + chunk.length - cap;
      chunk.copy(this.ring, 0, chunk.length - cap);
      this.end = 0;
      this.full = true;
      return;
    }
    const overflow = Math.max(0, this.held() + chunk.length - cap);
    this.dropped += overflow;
    const first = Math.min(chunk.length, cap - this.end);
    chunk.copy(this.ring, this.end, 0, first);
    chunk.copy(this.ring, 0, first);
    const next = this.end + chunk.length;
    if (next >= cap) this.full = true;
    this.end = next % cap;
  }

  held(): number {
    return this.full ? this.capacity : this.end;
  }

  /** The held bytes, oldest first (a copy). */
  bytes(): Buffer {
    if (!this.full) return Buffer.from(this.ring.subarray(0, this.end));
    return Buffer.concat([this.ring.subarray(this.end), this.ring.subarray(0, this.end)]);
  }
}

/** OSC (to BEL or ST), CSI (7- and 8-bit), other ESC sequences, and any stray ESC. */
const ANSI = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|(?:\x1b\[|\u009b)[0-?]*[ -/]*[@-~]|\x1b[ -/]*[0-~]|\x1b/g;

/** The text without terminal escapes (colours, cursor moves, titles). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

export function cutMarker(bytes: number): string {
  return `[fixloop: log cut after ${bytes} bytes; the end of the job log was not read]`;
}

export interface LogTail {
  /** The last lines, cleaned; when the read was cut, a last marker line says where. */
  text: string;
  /** True when `text` is not the whole log: earlier lines dropped, or the end never read. */
  truncated: boolean;
  /** Where reading stopped when the end of the log was not read; null when it was read to the end. */
  cutAtBytes: number | null;
  /** Bytes of the body read. */
  bytesRead: number;
}

/** What a bounded read left: the tail held, how much was read, and whether reading stopped early. */
export interface TailRead {
  tail: TailBuffer;
  bytesRead: number;
  cut: boolean;
}

/**
 * J2: a body read into a tail until `maxBytes` (both hosts' log readers feed it their chunks). `feed`
 * answers null while reading may go on, or the finished read once the cap is reached — cut, unless
 * the body was exactly `maxBytes` long as its declared length says.
 */
export class CappedTailRead {
  readonly tail: TailBuffer;
  bytesRead = 0;

  constructor(
    keepBytes: number,
    private readonly maxBytes: number,
    /** The Content-Length the host declared; NaN when none. */
    private readonly declared: number,
  ) {
    this.tail = new TailBuffer(keepBytes);
  }

  feed(chunk: Buffer): TailRead | null {
    const room = this.maxBytes - this.bytesRead;
    if (chunk.length < room) {
      this.tail.write(chunk);
      this.bytesRead += chunk.length;
      return null;
    }
    this.tail.write(chunk.subarray(0, room));
    this.bytesRead += room;
    const cut = !(chunk.length === room && this.declared === this.bytesRead);
    return { tail: this.tail, bytesRead: this.bytesRead, cut };
  }

  /** The read at the body's end: not cut. */
  ended(): TailRead {
    return { tail: this.tail, bytesRead: this.bytesRead, cut: false };
  }
}

/**
 * One raw line (its line-ending `\r` already removed) as a person reads it; null drops the line
 * (a host's bookkeeping, such as GitLab's section markers, is not a line of the log).
 */
export type CleanLine = (line: string) => string | null;

/** The last `lines` cleaned lines of what was read, with the cut marker when the end was not read. */
export function renderTail(read: TailRead, lines: number, clean: CleanLine): LogTail {
  let raw = read.tail.bytes();
  const startDropped = read.tail.dropped > 0;
  if (startDropped) {
    // The first held line is most likely a fragment (and may start mid-character): drop it.
    const nl = raw.indexOf(0x0a);
    if (nl !== -1) raw = raw.subarray(nl + 1);
  }
  const all = raw.toString('utf8').split('\n');
  if (all.length > 0 && all[all.length - 1] === '') all.pop(); // the newline ending the last line
  // Cleaned before counting, so a dropped line never takes the place of one shown; the held bytes
  // are bounded, so cleaning all of them is too.
  const cleaned: string[] = [];
  for (const l of all) {
    const line = clean(l.endsWith('\r') ? l.slice(0, -1) : l);
    if (line !== null) cleaned.push(line);
  }
  const kept = cleaned.slice(-lines);
  const cutAtBytes = read.cut ? read.bytesRead : null;
  if (cutAtBytes !== null) kept.push(cutMarker(cutAtBytes));
  return {
    text: kept.join('\n'),
    truncated: startDropped || read.cut || cleaned.length > lines,
    cutAtBytes,
    bytesRead: read.bytesRead,
  };
}

/** A bound given to a log reader (keepBytes, maxBytes, lines): absent → the default; anything but a positive integer is a RangeError. */
export function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
