// The `actions` runner (issue 35 item 3, SPEC L1, R2): resumes an agent that runs in the repository's
// own CI by dispatching a workflow on the Task's branch, with the run's id, fixloop's agent URL and the
// prompt (the frame) as inputs — never the run token: the workflow exchanges its CI identity token for
// one (POST /api/run/oidc-token). The workflow run's id is recorded for the run, then the run is
// followed in this process until it completes: success ends the run completed, anything else failed.
// A restart of fixloop stops the following; the run is followed again on start-up (`follow`), and in
// any case ends at its window (core/run-window.ts). On a gitlab Work the same runner starts a pipeline
// on the merge request's source branch instead (wiring/actions-runner.ts routes each repository to its
// CI; `words` says what was started in that CI's words).
import type { Logger, Runner, RunnerCallbacks, RunSpec } from '../app/ports.js';
import { boundText } from '../core/bounded-text.js';
import { RunnerError } from './errors.js';

/** GitHub's limit on a dispatch's inputs, as JSON characters (its documented maximum payload). */
export const DISPATCH_INPUTS_MAX_CHARS = 65_535;

/** What the runner asks of the CI host: dispatch a workflow, read a workflow run. */
export interface WorkflowHost {
  dispatch(
    repository: string,
    workflow: string,
    ref: string,
    inputs: Readonly<Record<string, string>>,
  ): Promise<{ workflowRunId: string; htmlUrl: string | null }>;
  readRun(repository: string, workflowRunId: string): Promise<{ status: string; conclusion: string | null }>;
  /** Cancels a run fixloop ended first (its window, a person's cancel), so its agent stops working and pushing. */
  cancel?(repository: string, workflowRunId: string): Promise<void>;
  /**
   * How a person reads what is started for `repository`: `start` (what could not be started, e.g. "a
   * pipeline") and the run a recorded id names (e.g. "pipeline 42"). Default: the workflow and its run.
   */
  words?(repository: string, workflowRunId: string | null): { start: string; run: string };
}

export interface ActionsRunnerOptions {
  workflow: string;
  pollMs: number;
  host: WorkflowHost;
  /** Records the workflow run's id for the fixloop run, durably (the OIDC exchange reads it). */
  record(runId: number, workflowRunId: string): Promise<unknown>;
  /** What was recorded for a run and its repository: a run another replica follows is cancelled from here too. */
  recorded?(runId: number): Promise<{ repository: string; workflowRunId: string } | null>;
  logger?: Logger;
}

/** The dispatch's inputs: the frame cut (head and tail kept) so that the whole fits GitHub's limit. */
export function dispatchInputs(spec: Pick<RunSpec, 'runId' | 'apiUrl' | 'prompt'>): Record<string, string> {
  const inputs = (frame: string) => ({ fixloop_run_id: String(spec.runId), fixloop_url: spec.apiUrl, frame });
  let max = DISPATCH_INPUTS_MAX_CHARS - JSON.stringify(inputs('')).length;
  let out = inputs(boundText(spec.prompt, max));
  // JSON escapes (newlines, quotes) take two characters or more: cut again by half of what is over,
  // which is exact for text all of escapes and nears the limit from above for any other.
  for (let over = JSON.stringify(out).length - DISPATCH_INPUTS_MAX_CHARS; over > 0 && max > 0;) {
    max -= Math.ceil(over / 2);
    out = inputs(boundText(spec.prompt, Math.max(0, max)));
    over = JSON.stringify(out).length - DISPATCH_INPUTS_MAX_CHARS;
  }
  return out;
}

export function createActionsRunner(opts: ActionsRunnerOptions) {
  const words = (repository: string, workflowRunId: string | null) =>
    opts.host.words?.(repository, workflowRunId) ?? {
      start: `the workflow ${opts.workflow}`,
      run: `workflow run ${workflowRunId ?? ''}`,
    };
  /** The runs this process follows, by fixloop run id: the timer of the next read, and what it reads. */
  const following = new Map<number, { timer: NodeJS.Timeout; repository: string; workflowRunId: string }>();
  /** Runs being dispatched now, and those of them fixloop ended meanwhile (cancelled once they exist). */
  const starting = new Set<number>();
  const endedWhileStarting = new Set<number>();
  let stopped = false;

  /** Reads the workflow run every pollMs until it completes, then reports the fixloop run's end. */
  function follow(runId: number, repository: string, workflowRunId: string, callbacks: RunnerCallbacks): void {
    if (stopped || following.has(runId)) return;
    const schedule = () => {
      const t = setTimeout(() => void read(), opts.pollMs);
      t.unref();
      following.set(runId, { timer: t, repository, workflowRunId });
    };
    const read = async () => {
      try {
        const r = await opts.host.readRun(repository, workflowRunId);
        if (r.status === 'completed') {
          if (!following.delete(runId)) return; // stopped meanwhile (the run's window, a cancel)
          callbacks.onOutput(
            runId,
            `\n[fixloop] ${words(repository, workflowRunId).run} completed: ${r.conclusion ?? 'no conclusion'}\n`,
          );
          callbacks.onExit(runId, { state: r.conclusion === 'success' ? 'completed' : 'failed', exitCode: null });
          return;
        }
      } catch (err) {
        // A failed read is tried again on the next: the run still ends at its window if GitHub never answers.
        opts.logger?.warn({ err, runId, workflowRunId }, 'workflow run not read; tried again');
      }
      if (!stopped && following.has(runId)) schedule();
    };
    schedule();
  }

  async function start(spec: RunSpec, callbacks: RunnerCallbacks): Promise<void> {
    let run: { workflowRunId: string; htmlUrl: string | null };
    starting.add(spec.runId);
    try {
      run = await opts.host.dispatch(spec.repository, opts.workflow, spec.branch, dispatchInputs(spec));
    } catch (err) {
      starting.delete(spec.runId);
      endedWhileStarting.delete(spec.runId);
      const status = (err as { status?: unknown }).status;
      throw new RunnerError(
        typeof status === 'number' ? 'http_status' : 'http_error',
        `${words(spec.repository, null).start} could not be started: ${(err as Error).message}`,
        { ...(typeof status === 'number' ? { status } : {}), cause: err },
      );
    }
    // The workflow runs whatever this write does: a failure is logged, and the run is still followed
    // (its agent cannot reach fixloop without it, so the run ends as one that never called).
    await opts
      .record(spec.runId, run.workflowRunId)
      .catch((err: unknown) => opts.logger?.error({ err, runId: spec.runId }, 'workflow run id not recorded'));
    starting.delete(spec.runId);
    // fixloop ended the run while it was being dispatched (a person's cancel): cancel what was started.
    if (endedWhileStarting.delete(spec.runId)) {
      await cancel(spec.runId, { repository: spec.repository, workflowRunId: run.workflowRunId });
      return;
    }
    callbacks.onOutput(
      spec.runId,
      `[fixloop] started ${words(spec.repository, null).start} on ${spec.branch}: ${words(spec.repository, run.workflowRunId).run}${run.htmlUrl ? ` ${run.htmlUrl}` : ''}\n`,
    );
    follow(spec.runId, spec.repository, run.workflowRunId, callbacks);
  }

  /**
   * fixloop ended the run first (its window, a person's cancel): stop following it and ask its CI to
   * cancel it, so an agent still at work cannot push after its run was settled. A run this process
   * does not follow (another replica's) is cancelled through what was recorded for it. The answer is
   * only logged: the run has ended in fixloop either way. True when this process was following it.
   */
  function kill(runId: number): boolean {
    const f = following.get(runId);
    if (f !== undefined) {
      clearTimeout(f.timer);
      following.delete(runId);
    }
    if (starting.has(runId)) endedWhileStarting.add(runId);
    void cancel(runId, f ?? null);
    return f !== undefined;
  }

  async function cancel(runId: number, known: { repository: string; workflowRunId: string } | null): Promise<void> {
    if (!opts.host.cancel) return;
    try {
      const run = known ?? (await opts.recorded?.(runId)) ?? null;
      if (run === null) return; // never started (or not recorded): nothing to cancel
      await opts.host.cancel(run.repository, run.workflowRunId);
      opts.logger?.info({ runId, workflowRunId: run.workflowRunId }, 'agent run cancelled in its CI');
    } catch (err) {
      opts.logger?.warn({ err, runId }, 'agent run not cancelled in its CI; it may go on until its own timeout');
    }
  }

  /** Shutdown: stop following; the workflow runs on, and the next start follows it again. */
  async function stopAll(): Promise<void> {
    stopped = true;
    for (const f of following.values()) clearTimeout(f.timer);
    following.clear();
  }

  return { kind: 'actions' as const, start, follow, kill, stopAll } satisfies Runner & Record<string, unknown>;
}

export type ActionsRunner = ReturnType<typeof createActionsRunner>;
