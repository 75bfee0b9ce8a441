// Issue 35 item 6 (SPEC R2): the two GitLab CI calls the `actions` runner makes for a project on
// GitLab — start a pipeline on the merge request's source branch with the run's variables
// (`POST /projects/:id/pipeline`, `ref` and `variables: [{ key, value, variable_type }]`), then read it
// (`GET /projects/:id/pipelines/:pipeline_id`) until it finishes — on fixloop's GitLab token (scope
// `api`). A pipeline's status is said in the runner's words: a finished one is `completed` with its
// status as the conclusion (only `success` ends the run completed); any other is still going.
import { Pipelines } from '@gitbeaker/rest';
import type { Logger } from '../app/ports.js';
import { boundText } from '../core/bounded-text.js';
import { toProviderError } from './errors.js';
import { fixloopRequester } from './requester.js';

/**
 * How a started pipeline is recorded as the run's external reference: the prefix keeps a pipeline id
 * apart from a GitHub workflow run id (stored bare, as before this prefix existed).
 */
export const PIPELINE_REF_PREFIX = 'gitlab-pipeline:';

/** The pipeline id a recorded reference names, or null when it names none (a workflow run's bare id). */
export function pipelineIdOfRef(ref: string): string | null {
  const m = /^gitlab-pipeline:([1-9]\d{0,19})$/.exec(ref);
  return m ? m[1]! : null;
}

/**
 * The most FIXLOOP_FRAME may hold, in UTF-8 bytes: half of Linux's limit on one environment variable
 * (128 KiB, MAX_ARG_STRLEN), which a job's variable must fit, and under GitLab.com's limit on a
 * pipeline variable's value (120 KiB).
 */
export const FRAME_VARIABLE_MAX_BYTES = 64 * 1024;

/** GitLab's pipeline statuses that are an end (any other: created, pending, running, manual …, goes on). */
const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped']);

export interface PipelineRunState {
  /** `completed` once finished; else GitLab's status (pending, running, manual …). */
  status: string;
  /** GitLab's status once finished (success, failed, canceled, skipped); null before. */
  conclusion: string | null;
  htmlUrl: string | null;
}

/** The runner's inputs (fixloop_run_id, fixloop_url, frame) as pipeline variables, the frame bounded. */
export function pipelineVariables(
  inputs: Readonly<Record<string, string>>,
): Array<{ key: string; value: string; variable_type: 'env_var' }> {
  const whole = inputs.frame ?? '';
  let frame = whole;
  // Cut by characters (head and tail kept) in proportion to the bytes over, until the UTF-8 bytes fit.
  for (let max = whole.length, bytes = Buffer.byteLength(frame, 'utf8'); bytes > FRAME_VARIABLE_MAX_BYTES && max > 0;) {
    max = Math.min(max - 1, Math.floor((max * FRAME_VARIABLE_MAX_BYTES) / bytes));
    frame = boundText(whole, Math.max(0, max));
    bytes = Buffer.byteLength(frame, 'utf8');
  }
  return [
    { key: 'FIXLOOP_RUN_ID', value: inputs.fixloop_run_id ?? '', variable_type: 'env_var' },
    { key: 'FIXLOOP_URL', value: inputs.fixloop_url ?? '', variable_type: 'env_var' },
    { key: 'FIXLOOP_FRAME', value: frame, variable_type: 'env_var' },
  ];
}

/** A GitLab pipeline's status in the runner's words. */
export function pipelineRunState(status: string, webUrl: string | null): PipelineRunState {
  return FINISHED.has(status)
    ? { status: 'completed', conclusion: status, htmlUrl: webUrl }
    : { status, conclusion: null, htmlUrl: webUrl };
}

export interface PipelineCalls {
  /** Starts a pipeline on `ref`; its id as recorded (PIPELINE_REF_PREFIX) and its page. */
  start(
    project: string,
    ref: string,
    inputs: Readonly<Record<string, string>>,
  ): Promise<{ workflowRunId: string; htmlUrl: string | null }>;
  /** Reads the pipeline a recorded reference names. */
  read(project: string, recordedRef: string): Promise<PipelineRunState>;
  /** Asks GitLab to cancel the pipeline a recorded reference names (its running jobs stop). */
  cancel(project: string, recordedRef: string): Promise<void>;
}

export function createPipelineCalls(opts: {
  url: string;
  token: string;
  log: Logger;
  timeoutMs?: number;
}): PipelineCalls {
  const host = opts.url.replace(/\/+$/, '');
  const requesterFn = fixloopRequester(
    { rateLimitRetries: 2, maxWaitSeconds: 60, retries: 3, backoffUnitMs: 1000 },
    opts.log,
    () => undefined,
  );
  const pipelines = new Pipelines({
    host,
    token: opts.token,
    requesterFn,
    queryTimeout: opts.timeoutMs ?? 60_000,
    rateLimits: {},
  });
  return {
    async start(project, ref, inputs) {
      try {
        // A POST: the requester never retries it (a lost answer may have started a pipeline already).
        const p = (await pipelines.create(project, ref, { variables: pipelineVariables(inputs) })) as {
          id?: unknown;
          web_url?: unknown;
        };
        if (typeof p.id !== 'number' || !Number.isSafeInteger(p.id) || p.id <= 0)
          throw new Error('GitLab created the pipeline but did not say its id');
        return {
          workflowRunId: `${PIPELINE_REF_PREFIX}${p.id}`,
          htmlUrl: typeof p.web_url === 'string' ? p.web_url : null,
        };
      } catch (err) {
        throw toProviderError(err, `POST pipeline ${project} ${ref}`);
      }
    },
    async read(project, recordedRef) {
      const id = pipelineIdOfRef(recordedRef);
      if (id === null) throw new TypeError(`not a recorded pipeline: ${JSON.stringify(recordedRef)}`);
      try {
        const p = (await pipelines.show(project, Number(id))) as { status?: unknown; web_url?: unknown };
        return pipelineRunState(
          typeof p.status === 'string' ? p.status : 'unknown',
          typeof p.web_url === 'string' ? p.web_url : null,
        );
      } catch (err) {
        throw toProviderError(err, `GET pipeline ${project} ${id}`);
      }
    },
    async cancel(project, recordedRef) {
      const id = pipelineIdOfRef(recordedRef);
      if (id === null) throw new TypeError(`not a recorded pipeline: ${JSON.stringify(recordedRef)}`);
      try {
        await pipelines.cancel(project, Number(id));
      } catch (err) {
        throw toProviderError(err, `POST cancel pipeline ${project} ${id}`);
      }
    },
  };
}
