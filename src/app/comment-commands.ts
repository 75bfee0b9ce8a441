// `/fixloop off|on|retry|status` on the pull request (core/comment-command.ts), applied as the
// commenting person's action through the same use-case as the dashboard's, so the audit trail says who
// (H1). `status` answers on the pull request with the loop's state as the board shows it.
import type { CommentCommand } from '../core/comment-command.js';
import { LOOP_STATE_WORDS } from '../core/loop-state.js';
import { DEFAULT_MAX_GRANTS, grantAllowance, grantWords } from '../core/grant-cap.js';
import type { Task } from '../core/types.js';
import type { WordsOf } from '../core/host-words.js';
import type { ProviderPort } from './provider-port.js';
import type { Ledger } from './ledger-port.js';
import type { ActionResult, createPersonActions } from './person-actions.js';

export interface CommentCommandDeps {
  actions: Pick<ReturnType<typeof createPersonActions>, 'setLoop' | 'approveOne'>;
  /** The board's row of the Task, for `status`. */
  ledger: Pick<Ledger, 'boardPage'>;
  /** To answer `status`; null without access to the host. */
  host: Pick<ProviderPort, 'createIssueComment'> | null;
  /** The words of a repository's host (issue 34): whose credentials are missing. */
  wordsOf: WordsOf;
  maxAttempts: number;
  /** V4: the configured cap on grants per Task, for `status`; default 3. */
  maxGrants?: number;
}

/** Null when the command was applied; else why not, for the decision log. */
export function createCommentCommands(deps: CommentCommandDeps) {
  return async (task: Task, command: CommentCommand, author: string): Promise<string | null> => {
    const via = `comment by @${author}` as const;
    const why = (r: ActionResult): string | null => (r.kind === 'done' ? null : r.message);
    switch (command) {
      case 'off':
        return why(await deps.actions.setLoop(task.id, false, via));
      case 'on':
        return why(await deps.actions.setLoop(task.id, true, via));
      case 'retry': {
        const r = await deps.actions.approveOne(task.id, via);
        // V4: past the grant cap the person is answered on the pull request: how many grants were used
        // and how to open more (the decision log records the refusal as any other).
        if (r.kind === 'conflict' && r.code === 'grant_cap' && deps.host)
          await deps.host.createIssueComment(
            task.repository,
            task.pullRequest,
            `fixloop (to @${author}): ${r.message}`,
          );
        return why(r);
      }
      case 'status': {
        if (!deps.host) return `fixloop has no ${deps.wordsOf(task.repository).name} credentials to answer with`;
        const row = (await deps.ledger.boardPage({ taskId: task.id, limit: 1 })).rows[0];
        if (!row) return 'the Task is not on the board';
        const budget = deps.maxAttempts + row.extraAttempts;
        await deps.host.createIssueComment(
          task.repository,
          task.pullRequest,
          `fixloop: the loop is **${LOOP_STATE_WORDS[row.loopState]}** for this ${deps.wordsOf(task.repository).changeRequest} — ` +
            `${row.attemptsUsed} of ${budget} automatic attempts used ` +
            `(${grantWords(grantAllowance(row.extraAttempts, deps.maxGrants ?? DEFAULT_MAX_GRANTS, row.maxGrants))}), CI ${row.ciState}` +
            `${row.lastFailure ? `, last failure: \`${row.lastFailure.replace(/`/g, "'")}\`` : ''}. ` +
            `Commands: \`/fixloop off\`, \`/fixloop on\`, \`/fixloop retry\`, \`/fixloop status\`.`,
        );
        return null;
      }
    }
  };
}
