// The failed CI job behind a red that came with no output (issue 34 item 1; SPEC C6, J2). A
// pipeline's result is a sum of its jobs with no text of its own, and a job's hook carries no log;
// before the agent is seeded, the host is asked for the head's jobs, and the job the red named (or,
// when it named a pipeline, the first failing job) is named in the frame with the tail of its log.
// Only where the host serves a job's log itself (`readJobLog`); elsewhere nothing is read and the
// frame says the check reported no output. A log that cannot be read is no error: the frame says so.
import { verdictOfConclusion } from '../core/verdict.js';
import type { ProviderPort } from './provider-port.js';

/** The failed job a frame names, and the tail of its log (untrusted, fenced by the frame). */
export interface FailedJobLog {
  name: string;
  text: string;
}

/** The failed job of `headSha` named `named` (else the first failing job) and its log tail; null when none can be read. */
export type ReadFailedJobLog = (repository: string, headSha: string, named: string) => Promise<FailedJobLog | null>;

/** Lines of the log tail a frame is seeded with; the frame's fence bounds the characters again. */
export const FAILED_JOB_LOG_LINES = 200;

/**
 * The reader over each repository's own host port (not the routed one, which answers every call):
 * a host whose port has no `readJobLog` is never asked anything here.
 */
export function failedJobLogReader(
  hostPortOf: (repository: string) => Pick<ProviderPort, 'listCheckRuns' | 'readJobLog'> | null,
  lines = FAILED_JOB_LOG_LINES,
): ReadFailedJobLog {
  return async (repository, headSha, named) => {
    const host = hostPortOf(repository);
    if (!host?.readJobLog) return null;
    try {
      const failing = (await host.listCheckRuns(repository, headSha)).filter(
        (r) => verdictOfConclusion(r.conclusion) === 'red',
      );
      const job = failing.find((r) => r.name === named) ?? failing[0];
      if (!job) return null;
      const tail = await host.readJobLog(repository, job.id, { lines });
      return tail && tail.text.trim() !== '' ? { name: job.name, text: tail.text } : null;
    } catch {
      // Degraded evidence, never a failed dispatch: the frame says no output could be read.
      return null;
    }
  };
}
