// Notices on Kysely (SPEC G1): the marker on the Task is claimed by compare-and-set and only the
// winner files the notice, so a Task's stop is told exactly once, however many writers race. The
// notice's deliveries to the configured sinks are queued in the same transaction (outbox.ts).
import type { Kysely, Transaction } from 'kysely';
import type { NoticeInput, NoticeStore } from '../app/ledger-port.js';
import type { Notice } from '../core/types.js';
import type { Database } from './schema.js';
import { noticeOf } from './rows.js';
import { queueDeliveriesIn } from './outbox.js';

type Q = Kysely<Database> | Transaction<Database>;

export async function countAttemptsIn(q: Q, taskId: number): Promise<number> {
  const r = await q
    .selectFrom('attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('task_id', '=', taskId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * G1 inside the caller's transaction (the budget's settle files its notice in the same one), with one
 * outbox row per sink: every path that files a notice comes here, so none files one unqueued.
 */
export async function fileNoticeIn(
  trx: Transaction<Database>,
  n: NoticeInput,
  at: string,
  sinks: readonly string[],
): Promise<Notice | null> {
  const won = await trx
    .updateTable('tasks')
    .set({ notice_at: at, updated_at: at })
    .where('id', '=', n.taskId)
    .where('notice_at', 'is', null)
    .executeTakeFirst();
  if (Number(won.numUpdatedRows) !== 1) return null;
  const t = await trx
    .selectFrom('tasks')
    .select(['repository', 'pr_number', 'stop_round'])
    .where('id', '=', n.taskId)
    .executeTakeFirstOrThrow();
  // Counted here, in the transaction that files the notice: a claim committed meanwhile is in it.
  const used = await countAttemptsIn(trx, n.taskId);
  const row = await trx
    .insertInto('notices')
    .values({
      task_id: n.taskId,
      round: t.stop_round,
      reason: n.reason,
      head_sha: n.headSha,
      attempts_used: used,
      message: n.message(used),
      created_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await queueDeliveriesIn(trx, row.id, sinks, at);
  return noticeOf({ ...row, ...t });
}

export function createNoticeStore(k: Kysely<Database>, now: () => string, sinks: readonly string[]): NoticeStore {
  const withPullRequest = () =>
    k
      .selectFrom('notices')
      .innerJoin('tasks', 'tasks.id', 'notices.task_id')
      .selectAll('notices')
      .select(['tasks.repository', 'tasks.pr_number']);
  return {
    fileNotice: (n) => k.transaction().execute((trx) => fileNoticeIn(trx, n, now(), sinks)),

    async getNotice(taskId) {
      const r = await withPullRequest()
        .where('notices.task_id', '=', taskId)
        .orderBy('notices.id', 'desc')
        .executeTakeFirst();
      return r ? noticeOf(r) : null;
    },

    async listNotices() {
      return (await withPullRequest().orderBy('notices.id', 'desc').execute()).map(noticeOf);
    },
  };
}
