// The ledger's state for a metrics scrape (SPEC N2): every query is bounded by what is open now —
// the in-flight and unsettled attempts and the unfinished runs are exactly what the partial indexes
// attempts_one_in_flight, attempts_unsettled and runs_unfinished hold (their WHERE clauses are
// repeated here word for word so the planner uses them), the Inbox is the open Tasks — or sums the
// two small tables that grow by one row per stop (notices) and per spend report (spends).
import type { Kysely } from 'kysely';
import type { LedgerGauges } from '../app/metrics-port.js';
import type { Database } from './schema.js';

const IN_FLIGHT = ['queued', 'running', 'awaiting_progress'];
const UNSETTLED = ['claimed', 'dispatching'];
const UNFINISHED = ['queued', 'running'];

export async function readLedgerGauges(k: Kysely<Database>): Promise<LedgerGauges> {
  const [inFlight, unsettled, runs, inbox, stops, spend] = await Promise.all([
    k
      .selectFrom('attempts')
      .select((eb) => ['state', eb.fn.countAll<number>().as('n')])
      .where('state', 'in', IN_FLIGHT)
      .groupBy('state')
      .execute(),
    k
      .selectFrom('attempts')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .where('status', 'in', UNSETTLED)
      .groupBy('status')
      .execute(),
    k
      .selectFrom('runs')
      .select((eb) => ['state', eb.fn.countAll<number>().as('n')])
      .where('state', 'in', UNFINISHED)
      .groupBy('state')
      .execute(),
    k
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'open')
      .where('notice_at', 'is not', null)
      .executeTakeFirstOrThrow(),
    k
      .selectFrom('notices')
      .select((eb) => ['reason', eb.fn.countAll<number>().as('n')])
      .groupBy('reason')
      .execute(),
    k
      .selectFrom('spends')
      .select((eb) => [
        eb.fn.sum<number | null>('model').as('model'),
        eb.fn.sum<number | null>('sandbox').as('sandbox'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  // PostgreSQL answers count(*) as a bigint string and sum(real) as a number; SQLite both as numbers.
  return {
    attemptsInFlight: inFlight.map((r) => ({ state: r.state, n: Number(r.n) })),
    attemptsUnsettled: unsettled.map((r) => ({ status: r.status, n: Number(r.n) })),
    runsUnfinished: runs.map((r) => ({ state: r.state, n: Number(r.n) })),
    openNotices: Number(inbox.n),
    stops: stops.map((r) => ({ reason: r.reason, n: Number(r.n) })),
    spend: { model: Number(spend.model ?? 0), sandbox: Number(spend.sandbox ?? 0) },
  };
}
