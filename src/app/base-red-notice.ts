// A red base told once (issue 36 item 4, decision 0069). When triage holds a pull request because its
// base fails the same check (T1), the base's red round is filed once — an Inbox notice, and where the
// Work sets `baseIssue` one issue on the repository naming the check and the commit — and every later
// pull request held by the same red joins it. The round's row is unique in the ledger per repository,
// base branch and round, so replicas holding pull requests at once file one. A pass (the poll's, each
// tick) reads the base of each open round and closes it when the base passes its checks again, with
// the issue closed after a comment; the held pull requests are judged again on their next result, as
// before this notice existed (the poll re-offers their reds; a held result stays held). The notice
// sinks (Slack, webhooks) are told of both, through the ledger's outbox (decision 0075).
import {
  baseHealed,
  baseHealedComment,
  baseHealedMessage,
  baseIssueBody,
  baseIssueTitle,
  baseRedMessage,
  type BaseReading,
} from '../core/base-red.js';
import type { WordsOf } from '../core/host-words.js';
import type { Task } from '../core/types.js';
import type { BaseRed, BaseRedStore } from './ledger-port.js';
import type { Logger } from './ports.js';
import type { ProviderPort } from './provider-port.js';

/** Open rounds a healing pass reads at most (each is one cached read of a base branch). */
const OPEN_ROUNDS_READ = 100;

export interface BaseRedNoticeDeps {
  ledger: Pick<BaseRedStore, 'joinBaseRed' | 'setBaseRedIssue' | 'openBaseReds' | 'closeBaseRed'>;
  /** Files and closes the issue; null (or a host without issues): the notice only. */
  host: Pick<ProviderPort, 'createIssue' | 'closeIssue'> | null;
  wordsOf: WordsOf;
  /** The Work's `baseIssue` for the repository. */
  issueFor(repository: string): boolean;
  /** The base branch's failing checks now (cached for a poll interval); null when not known. */
  readBranch(repository: string, baseRef: string): Promise<BaseReading | null>;
  logger: Logger;
}

export interface BaseRedNotice {
  /** The pull request of `task` is held by `checks` failing on `base`: it files the round or joins it. */
  held(task: Task, base: BaseReading, checks: readonly string[]): Promise<BaseRed>;
  /** Closes every open round whose base passes its checks again; resolves to the rounds closed. */
  heal(): Promise<BaseRed[]>;
}

export function createBaseRedNotice(deps: BaseRedNoticeDeps): BaseRedNotice {
  const { ledger, logger } = deps;

  async function fileIssue(red: BaseRed): Promise<void> {
    if (!deps.issueFor(red.repository) || !deps.host?.createIssue) return;
    const words = deps.wordsOf(red.repository);
    try {
      const issue = await deps.host.createIssue(
        red.repository,
        baseIssueTitle(red),
        baseIssueBody({ ...red, words, pullRequests: red.pullRequests }),
      );
      await ledger.setBaseRedIssue(red.id, issue.number);
      logger.info({ repository: red.repository, baseRef: red.baseRef, issue: issue.number }, 'base red: issue filed');
    } catch (err) {
      // The notice stands without it: the Inbox tells the same, and no second issue is ever tried.
      logger.warn({ err, repository: red.repository, baseRef: red.baseRef }, 'base red: the issue could not be filed');
    }
  }

  return {
    async held(task, base, checks) {
      const words = deps.wordsOf(task.repository);
      const { red, filed } = await ledger.joinBaseRed({
        repository: task.repository,
        baseRef: base.ref,
        checks,
        baseSha: base.sha ?? null,
        taskId: task.id,
        message: baseRedMessage({
          repository: task.repository,
          baseRef: base.ref,
          checks: [...checks].sort(),
          baseSha: base.sha ?? null,
          words,
        }),
      });
      if (filed) {
        logger.info({ repository: red.repository, baseRef: red.baseRef, round: red.round }, 'base red: notice filed');
        await fileIssue(red);
      }
      return red;
    },

    async heal() {
      const closed: BaseRed[] = [];
      for (const red of await ledger.openBaseReds(OPEN_ROUNDS_READ)) {
        const base = await deps.readBranch(red.repository, red.baseRef).catch(() => null);
        if (!baseHealed(red.checks, base)) continue;
        const healed = baseHealedMessage({ ...red, words: deps.wordsOf(red.repository) });
        if (!(await ledger.closeBaseRed(red.id, healed))) continue; // another replica closed it
        closed.push(red);
        logger.info({ repository: red.repository, baseRef: red.baseRef, round: red.round }, 'base red: healed, closed');
        if (red.issueNumber !== null && deps.host?.closeIssue) {
          const comment = baseHealedComment({ ...red, words: deps.wordsOf(red.repository) });
          await deps.host
            .closeIssue(red.repository, red.issueNumber, comment)
            .catch((err: unknown) =>
              logger.warn(
                { err, repository: red.repository, issue: red.issueNumber },
                'base red: the issue could not be closed',
              ),
            );
        }
      }
      return closed;
    },
  };
}
