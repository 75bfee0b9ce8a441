// The lease both outboxes hold a row by (decisions 0025, 0075): a worker takes a due row by
// compare-and-set of its lease, so across replicas one holds it at a time; it settles the row only
// while it still holds it, and gives it back uncounted on shutdown. The notice outbox (outbox.ts) and
// the red bases' outbox (base-red-outbox.ts) share these columns, so one set of statements serves both.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { OutboxResult } from '../app/outbox-port.js';
import type { Database } from './schema.js';

export type LeasedTable = 'notice_outbox' | 'base_red_outbox';

/** Free to take at `at`: never leased, or its lease ran out. */
const leaseFree = (at: string) => (eb: ExpressionBuilder<Database, 'notice_outbox'>) =>
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]);

// Both tables carry the same lease columns; the statements are written once against one of them.
const asOne = (table: LeasedTable) => table as 'notice_outbox';

/** The compare-and-set: of replicas that read the same pending row, one moves its lease. */
export async function takeLease(
  k: Kysely<Database>,
  table: LeasedTable,
  id: number,
  lease: string,
  leaseUntil: string,
  at: string,
): Promise<boolean> {
  const won = await k
    .updateTable(asOne(table))
    .set({ lease_owner: lease, lease_until: leaseUntil, updated_at: at })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .where(leaseFree(at))
    .executeTakeFirst();
  return Number(won.numUpdatedRows) === 1;
}

/** The try's result, written only while `lease` still holds the row; false when it no longer does. */
export async function settleLease(
  k: Kysely<Database>,
  table: LeasedTable,
  id: number,
  lease: string,
  result: OutboxResult,
  at: string,
): Promise<boolean> {
  const base = { lease_owner: null, lease_until: null, updated_at: at };
  const set =
    result.kind === 'delivered'
      ? { ...base, state: 'delivered', delivered_at: at, last_error: null }
      : result.kind === 'retry'
        ? { ...base, next_at: result.at, last_error: result.error }
        : { ...base, state: 'failed', last_error: result.error };
  const r = await k
    .updateTable(asOne(table))
    .set((eb) => ({ ...set, attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('lease_owner', '=', lease)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Gives the row back uncounted (shutdown cut the try short), so the next worker need not wait out the lease. */
export async function releaseLease(
  k: Kysely<Database>,
  table: LeasedTable,
  id: number,
  lease: string,
  at: string,
): Promise<void> {
  await k
    .updateTable(asOne(table))
    .set({ lease_owner: null, lease_until: null, updated_at: at })
    .where('id', '=', id)
    .where('lease_owner', '=', lease)
    .execute();
}
