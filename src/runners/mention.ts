// The `mention` runner (issue 35 item 2, SPEC L1): resumes an agent that lives on the pull request —
// Copilot's cloud agent, Claude in tag mode, Codex cloud — by a comment that mentions it, posted as the
// identity the agent answers (a person's token where it ignores bots). Such an agent never calls
// fixloop: its sign of life is its push (core/sign-of-life.ts), which ends the run (`endsOnPush`), and
// a run it never answers ends at its window with a notice (core/run-window.ts). So start() only posts.
import type { Runner, RunnerCallbacks, RunSpec } from '../app/ports.js';
import { mentionComment } from '../core/mention-comment.js';
import { RunnerError } from './errors.js';

export interface MentionRunnerOptions {
  /** The handle the agent answers to, e.g. `@copilot`. */
  trigger: string;
  /** Posts a comment on the pull request as the configured identity. */
  post(repository: string, pullRequest: number, body: string): Promise<void>;
  /** How the repository's host names the change ("pull request", "merge request"). */
  changeRequestOf?(repository: string): string;
}

export function createMentionRunner(
  opts: MentionRunnerOptions,
): Runner & { readonly kind: 'mention'; readonly endsOnPush: true } {
  async function start(spec: RunSpec, _callbacks: RunnerCallbacks): Promise<void> {
    const body = mentionComment({
      trigger: opts.trigger,
      what: spec.failure?.what ?? 'the CI',
      text: spec.failure?.text ?? '',
      headSha: spec.headSha,
      attempt: spec.attempt?.number ?? null,
      maxAttempts: spec.attempt?.max ?? null,
      changeRequest: opts.changeRequestOf?.(spec.repository) ?? 'pull request',
    });
    try {
      await opts.post(spec.repository, spec.pullRequest, body);
    } catch (err) {
      throw new RunnerError('http_error', `the mention could not be posted: ${(err as Error).message}`, { cause: err });
    }
  }
  return { kind: 'mention', endsOnPush: true, start };
}
