// The notice outbox on Kysely (SPEC G1, P4, N1; decision 0025). fileNoticeIn queues one row per
// configured sink in the notice's own transaction; a worker takes a due row by compare-and-set of
// its lease, so across replicas one holds it at a time, and settles it only while it still holds it.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { OutboxDelivery, OutboxState, OutboxStore } from '../app/ledger-port.js';
import type { Database, NoticeOutboxTable } from './schema.js';
import { noticeOf } from './rows.js';
import { releaseLease, settleLease, takeLease } from './outbox-lease.js';

/** G1: the deliveries of a notice just filed, in the transaction that files it (never one without the other). */
export async function queueDeliveriesIn(
  trx: Transaction<Database>,
  noticeId: number,
  sinks: readonly string[],
  at: string,
): Promise<void> {
  if (sinks.length === 0) return;
  await trx
    .insertInto('notice_outbox')
    .values(
      sinks.map((sink) => ({
        notice_id: noticeId,
        sink,
        state: 'pending',
        next_at: at,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
}

type Row = Selectable<NoticeOutboxTable> & { task_id: number; repository: string; pr_number: number };

function deliveryOf(r: Row): OutboxDelivery {
  return {
    id: r.id,
    noticeId: r.notice_id,
    taskId: r.task_id,
    repository: r.repository,
    pullRequest: r.pr_number,
    sink: r.sink,
    state: r.state as OutboxState,
    attempts: Number(r.attempts),
    nextAt: r.next_at,
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deliveredAt: r.delivered_at,
  };
}

export function createOutboxStore(k: Kysely<Database>, now: () => string): OutboxStore {
  const withNotice = () =>
    k
      .selectFrom('notice_outbox')
      .innerJoin('notices', 'notices.id', 'notice_outbox.notice_id')
      .innerJoin('tasks', 'tasks.id', 'notices.task_id')
      .selectAll('notice_outbox')
      .select(['notices.task_id', 'tasks.repository', 'tasks.pr_number']);

  return {
    async claimOutbox(sink, limit, lease, leaseUntil) {
      const at = now();
      const due = (q: ReturnType<typeof withNotice>) =>
        q
          .where('notice_outbox.state', '=', 'pending')
          .where('notice_outbox.sink', '=', sink)
          .where('notice_outbox.next_at', '<=', at)
          .where((eb) =>
            eb.or([eb('notice_outbox.lease_until', 'is', null), eb('notice_outbox.lease_until', '<=', at)]),
          );
      const candidates = await due(withNotice()).orderBy('notice_outbox.next_at').limit(limit).execute();
      const claimed = [];
      for (const c of candidates) {
        if (!(await takeLease(k, 'notice_outbox', c.id, lease, leaseUntil, at))) continue;
        const n = await k
          .selectFrom('notices')
          .innerJoin('tasks', 'tasks.id', 'notices.task_id')
          .selectAll('notices')
          .select(['tasks.repository', 'tasks.pr_number'])
          .where('notices.id', '=', c.notice_id)
          .executeTakeFirstOrThrow();
        claimed.push({
          delivery: deliveryOf({ ...c, lease_owner: lease, lease_until: leaseUntil }),
          notice: noticeOf(n),
          lease,
        });
      }
      return claimed;
    },

    settleOutbox: (id, lease, result) => settleLease(k, 'notice_outbox', id, lease, result, now()),
    releaseOutbox: (id, lease) => releaseLease(k, 'notice_outbox', id, lease, now()),

    async listOutbox({ states, limit }) {
      if (states.length === 0) return [];
      const rows = await withNotice()
        .where('notice_outbox.state', 'in', [...states])
        .orderBy('notice_outbox.id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(deliveryOf);
    },

    async resendOutbox(id) {
      const row = await withNotice().where('notice_outbox.id', '=', id).executeTakeFirst();
      if (!row) return null;
      const before = deliveryOf(row);
      if (before.state !== 'failed') return { resent: false, delivery: before };
      const at = now();
      // Compare-and-set on `failed`: a double click, or two people, send it again once.
      const r = await k
        .updateTable('notice_outbox')
        .set({ state: 'pending', attempts: 0, next_at: at, updated_at: at })
        .where('id', '=', id)
        .where('state', '=', 'failed')
        .executeTakeFirst();
      return { resent: Number(r.numUpdatedRows) === 1, delivery: before };
    },

    async outboxDepth() {
      const r = await k
        .selectFrom('notice_outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
}
