// The red bases' outbox on Kysely (decision 0075): a round's `opened` and `healed` told to each notice
// sink, as the notice outbox (outbox.ts, decision 0025) tells a Task's notice. Rows are queued in the
// transaction that opens or closes the round; a worker claims a due row by compare-and-set of its
// lease, so across replicas one holds it at a time, and settles it only while it still holds it
// (outbox-lease.ts, shared with the notice outbox).
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { BaseRed, BaseRedEvent, BaseRedOutboxStore } from '../app/base-red-port.js';
import type { BaseRedOutboxTable, Database } from './schema.js';
import { releaseLease, settleLease, takeLease } from './outbox-lease.js';

/** Queues `event` of round `redId` to every sink, in the caller's transaction; once per event and sink. */
export async function queueBaseRedIn(
  trx: Transaction<Database>,
  redId: number,
  event: BaseRedEvent,
  message: string,
  sinks: readonly string[],
  at: string,
): Promise<void> {
  if (sinks.length === 0) return;
  await trx
    .insertInto('base_red_outbox')
    .values(
      sinks.map((sink) => ({
        red_id: redId,
        event,
        message,
        sink,
        state: 'pending',
        next_at: at,
        created_at: at,
        updated_at: at,
      })),
    )
    .onConflict((oc) => oc.columns(['red_id', 'event', 'sink']).doNothing())
    .execute();
}

export function createBaseRedOutboxStore(
  k: Kysely<Database>,
  now: () => string,
  redOf: (id: number) => Promise<BaseRed | null>,
): BaseRedOutboxStore {
  const due = (sink: string, at: string) =>
    k
      .selectFrom('base_red_outbox')
      .selectAll()
      .where('state', '=', 'pending')
      .where('sink', '=', sink)
      .where('next_at', '<=', at)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]));

  return {
    async claimBaseRedOutbox(sink, limit, lease, leaseUntil) {
      const at = now();
      const candidates: Selectable<BaseRedOutboxTable>[] = await due(sink, at)
        .orderBy('next_at')
        .limit(limit)
        .execute();
      const claimed = [];
      for (const c of candidates) {
        if (!(await takeLease(k, 'base_red_outbox', c.id, lease, leaseUntil, at))) continue;
        const red = await redOf(c.red_id);
        if (!red) continue; // a round is never deleted; a row without one is left to its lease
        claimed.push({
          delivery: {
            id: c.id,
            redId: c.red_id,
            event: c.event === 'healed' ? ('healed' as const) : ('opened' as const),
            message: c.message,
            sink: c.sink,
            attempts: Number(c.attempts),
          },
          red,
          lease,
        });
      }
      return claimed;
    },

    settleBaseRedOutbox: (id, lease, result) => settleLease(k, 'base_red_outbox', id, lease, result, now()),
    releaseBaseRedOutbox: (id, lease) => releaseLease(k, 'base_red_outbox', id, lease, now()),
  };
}
