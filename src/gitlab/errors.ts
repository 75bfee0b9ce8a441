// What GitLab refuses, typed once at the edge: the requester throws GitLabHttpError (an answer) or
// GitLabNetworkError (none, or too late), and every port method maps them to the port's
// ProviderError with provider 'gitlab' and GitLab's name: the status, a message naming the call but
// never a header (the token), and whether trying again later may help (5xx, 429, no answer). SPEC E4.
import { ProviderError } from '../app/provider-port.js';
import { GITLAB_WORDS } from './words.js';

/** GitLab answered with a status other than 2xx. */
export class GitLabHttpError extends Error {
  override readonly name = 'GitLabHttpError';

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** No answer: the connection failed, or the request's deadline passed. */
export class GitLabNetworkError extends Error {
  override readonly name = 'GitLabNetworkError';

  constructor(
    message: string,
    readonly timedOut: boolean,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

/** The status of a GitLab refusal, or null when `err` is not one (a bug, a bad argument). */
export function statusOf(err: unknown): number | null {
  if (err instanceof GitLabHttpError || err instanceof ProviderError) return err.status;
  return null;
}

/**
 * A GitLab refusal or a failure to reach it becomes a ProviderError; anything else is returned
 * unchanged. `what` names the call (e.g. "GET merge request group/app!7"); it carries no credentials.
 */
export function toProviderError(err: unknown, what: string): unknown {
  if (err instanceof ProviderError) return err;
  if (err instanceof GitLabHttpError) {
    // GitLab's own messages often start with the status ("404 Project Not Found"): said once.
    const said = err.message.startsWith(`${err.status} `) ? err.message : `${err.status} ${err.message}`;
    return new ProviderError(
      err.status,
      `${what}: ${said}`,
      isRetryableStatus(err.status),
      'gitlab',
      GITLAB_WORDS.name,
    );
  }
  if (err instanceof GitLabNetworkError)
    // As Octokit reports a request without an answer: a 500, worth trying again later.
    return new ProviderError(err.timedOut ? 504 : 500, `${what}: ${err.message}`, true, 'gitlab', GITLAB_WORDS.name);
  return err;
}

const TRACE_READ_ERROR_CODES = ['http_status', 'network', 'timeout', 'too_many_redirects', 'bad_redirect'] as const;
export type TraceReadErrorCode = (typeof TRACE_READ_ERROR_CODES)[number];

/** Why a job trace could not be read; `pr checks` shows it on the one entry (`code: message`, J2). */
export class TraceReadError extends Error {
  override readonly name = 'TraceReadError';

  constructor(
    readonly code: TraceReadErrorCode,
    message: string,
    /** The HTTP status, for `http_status`. */
    readonly status: number | null = null,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
  }
}
