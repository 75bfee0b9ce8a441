// The `mention` runner (issue 35 item 2, SPEC L1): resumes an agent that lives on the pull request —
// Copilot's cloud agent, Claude in tag mode, Codex cloud, GitLab Duo — by a comment that mentions it,
// posted as the identity the agent answers (a person's token where it ignores bots). Such an agent
// never calls fixloop: its sign of life is its push (core/sign-of-life.ts), which ends the run
// (`endsOnPush`), and a run it never answers ends at its window with a notice (core/run-window.ts).
// Where the host records the agent's own finish (Copilot's work events, decision 0074), the runner
// reads them every `followMs` for at most `followForMs` and ends the run at the first finish after its
// mention: finished or failed, the end's meaning is the sign-of-life rule's.
import type { Logger, Runner, RunnerCallbacks, RunSpec } from '../app/ports.js';
import { agentFinish, type AgentWorkEvent } from '../core/agent-finish.js';
import { mentionComment } from '../core/mention-comment.js';
import { RunnerError } from './errors.js';

export const MENTION_FOLLOW_DEFAULTS = {
  followMs: 60_000,
  /** Copilot's session ends within an hour; the run's own window usually ends the run sooner. */
  followForMs: 90 * 60_000,
} as const;

export interface MentionRunnerOptions {
  /** The handle the agent answers to, e.g. `@copilot`. */
  trigger: string;
  /** Posts a comment on the pull request as the configured identity; resolves with the comment's time (ISO 8601). */
  post(repository: string, pullRequest: number, body: string): Promise<{ at: string } | void>;
  /** How the repository's host names the change ("pull request", "merge request"). */
  changeRequestOf?(repository: string): string;
  /**
   * The agent's work events on the pull request where its host records them (null: this repository's
   * host records none, and the run ends by push or window only). Absent: nothing is followed.
   */
  workEvents?(repository: string, pullRequest: number): Promise<AgentWorkEvent[]> | null;
  /** The agent's name as people read it in the run log ("Copilot"). */
  agentName?: string;
  followMs?: number;
  followForMs?: number;
  now?: () => number;
  logger?: Pick<Logger, 'warn'>;
}

interface Follow {
  timer: NodeJS.Timeout | null;
  ended: boolean;
}

export function createMentionRunner(
  opts: MentionRunnerOptions,
): Runner & { readonly kind: 'mention'; readonly endsOnPush: true; stopAll(): Promise<void> } {
  const now = opts.now ?? Date.now;
  const followMs = opts.followMs ?? MENTION_FOLLOW_DEFAULTS.followMs;
  const followForMs = opts.followForMs ?? MENTION_FOLLOW_DEFAULTS.followForMs;
  const follows = new Set<Follow>();

  async function start(spec: RunSpec, callbacks: RunnerCallbacks): Promise<void> {
    const body = mentionComment({
      trigger: opts.trigger,
      what: spec.failure?.what ?? 'the CI',
      text: spec.failure?.text ?? '',
      headSha: spec.headSha,
      attempt: spec.attempt?.number ?? null,
      maxAttempts: spec.attempt?.max ?? null,
      changeRequest: opts.changeRequestOf?.(spec.repository) ?? 'pull request',
    });
    let posted: { at: string } | void;
    try {
      posted = await opts.post(spec.repository, spec.pullRequest, body);
    } catch (err) {
      throw new RunnerError('http_error', `the mention could not be posted: ${(err as Error).message}`, { cause: err });
    }
    if (opts.workEvents && posted?.at) follow(spec, callbacks, posted.at);
  }

  /** Reads the agent's work events until its first finish after the mention, or until followForMs. */
  function follow(spec: RunSpec, callbacks: RunnerCallbacks, since: string): void {
    const began = now();
    const f: Follow = { timer: null, ended: false };
    follows.add(f);
    const stop = () => {
      f.ended = true;
      if (f.timer) clearTimeout(f.timer);
      follows.delete(f);
    };
    const tick = async () => {
      f.timer = null;
      if (f.ended) return;
      try {
        const read = opts.workEvents!(spec.repository, spec.pullRequest);
        if (read === null) return stop(); // this host records none
        const end = agentFinish(opts.agentName ?? opts.trigger, await read, since);
        if (f.ended) return;
        if (end) {
          stop();
          callbacks.onExit(spec.runId, { state: end.state, exitCode: null, detail: end.detail });
          return;
        }
      } catch (err) {
        opts.logger?.warn({ runId: spec.runId, err }, "the agent's work events could not be read");
      }
      if (now() - began >= followForMs) return stop(); // the run's window ends it, with its notice
      if (!f.ended) schedule();
    };
    const schedule = () => {
      f.timer = setTimeout(() => void tick(), followMs);
      f.timer.unref();
    };
    schedule();
  }

  async function stopAll(): Promise<void> {
    // The agent goes on on the pull request: only the reading stops.
    for (const f of [...follows]) {
      f.ended = true;
      if (f.timer) clearTimeout(f.timer);
    }
    follows.clear();
  }

  return { kind: 'mention', endsOnPush: true, start, stopAll };
}
