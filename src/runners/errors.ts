// The one error type every runner rejects start() with (SPEC L1), so the dispatcher can record
// why a run could not be handed over without parsing messages.

export type RunnerErrorCode = 'spawn_failed' | 'http_status' | 'http_error' | 'timeout' | 'no_session';

export class RunnerError extends Error {
  override readonly name = 'RunnerError';
  readonly code: RunnerErrorCode;
  /** The HTTP status, for `http_status`. */
  readonly status: number | undefined;

  constructor(code: RunnerErrorCode, message: string, opts: { status?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.status = opts.status;
  }
}
