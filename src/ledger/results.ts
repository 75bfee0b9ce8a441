// The ledger's side of Results (SPEC V1): the rows of one period for core/results.ts. Every read starts
// from a `created_at`/`at` index of the period (migration 0023_results_facts) and the touched Tasks are
// chosen the same way, so a month costs what its rows cost, not the whole history. Reds and attempts
// are summed per Task and check in the database (a matrix's many reds are one row), the same queries
// on SQLite and PostgreSQL.
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { ResultsRows } from '../core/results.js';
import type { Dialect } from './db.js';
import type { Database } from './schema.js';

export interface ResultsStore {
  /** The rows of [from, to): reds, attempts, spend and notices of the period and the Tasks they name. */
  resultsRows(period: { from: string; to: string }): Promise<ResultsRows>;
}

/**
 * On SQLite each read runs on the event loop's thread (better-sqlite3 is synchronous): they run one at
 * a time with a turn of the loop between them, so a webhook waits for one read, never for all of them.
 * PostgreSQL reads run at once.
 */
export function createResultsStore(k: Kysely<Database>, dialect: Dialect = 'sqlite'): ResultsStore {
  return {
    async resultsRows({ from, to }) {
      let chain: Promise<unknown> = Promise.resolve();
      const run = <T>(read: () => Promise<T>): Promise<T> => {
        if (dialect === 'postgres') return read();
        const p = chain.then(nextTurn).then(read);
        chain = p.catch(() => undefined);
        return p;
      };
      // What each attempt's runs reported spending in the period.
      const attemptSpend = k
        .selectFrom('spends as s')
        .innerJoin('runs as ru', 'ru.id', 's.run_id')
        .select(['ru.attempt_id', sql<number>`sum(s.model + s.sandbox)`.as('amount')])
        .where('s.created_at', '>=', from)
        .where('s.created_at', '<', to)
        .where('ru.attempt_id', 'is not', null)
        .groupBy('ru.attempt_id')
        .as('sp');
      const touchedIds = (eb: ExpressionBuilder<Database, 'tasks'>) =>
        eb
          .selectFrom('rejections')
          .select('task_id')
          .where('source', '=', 'gate')
          .where('created_at', '>=', from)
          .where('created_at', '<', to)
          .union(
            eb.selectFrom('attempts').select('task_id').where('created_at', '>=', from).where('created_at', '<', to),
          );
      const [reds, attempts, tasks, otherSpend, notices, acts] = await Promise.all([
        run(() =>
          k
            .selectFrom('rejections')
            .select(['task_id', 'check_name', (eb) => eb.fn.min('created_at').as('at')])
            .where('source', '=', 'gate')
            .where('created_at', '>=', from)
            .where('created_at', '<', to)
            .groupBy(['task_id', 'check_name'])
            .execute(),
        ),
        run(() =>
          k
            .selectFrom('attempts as a')
            .leftJoin('rejections as r', 'r.id', 'a.rejection_id')
            .leftJoin(attemptSpend, 'sp.attempt_id', 'a.id')
            .select([
              'a.task_id',
              'a.source',
              'r.check_name',
              (eb) => eb.fn.countAll<number>().as('n'),
              (eb) => eb.fn.min('a.created_at').as('first_at'),
              (eb) => eb.fn.max('a.created_at').as('last_at'),
              sql<number>`coalesce(sum(sp.amount), 0)`.as('spend'),
            ])
            .where('a.created_at', '>=', from)
            .where('a.created_at', '<', to)
            .groupBy(['a.task_id', 'a.source', 'r.check_name'])
            .execute(),
        ),
        run(() =>
          k
            .selectFrom('tasks')
            .select(['id', 'repository', 'green_at', 'green_sha', 'ci_head_sha', 'ci_head_seen_at'])
            .where('id', 'in', touchedIds)
            .execute(),
        ),
        // Spend in the period by runs that answered no attempt (a person's resume).
        run(() =>
          k
            .selectFrom('spends as s')
            .leftJoin('runs as ru', 'ru.id', 's.run_id')
            .select(['s.task_id', sql<number>`sum(s.model + s.sandbox)`.as('amount')])
            .where('s.created_at', '>=', from)
            .where('s.created_at', '<', to)
            .where('ru.attempt_id', 'is', null)
            .groupBy('s.task_id')
            .execute(),
        ),
        // Every notice from the period's start on: one after its end may still fall between a red of
        // the period and its green; core counts as hand-offs only those of the period.
        run(() =>
          k.selectFrom('notices').select(['task_id', 'created_at', 'reason']).where('created_at', '>=', from).execute(),
        ),
        // A person's actions from the period's start on, for the same reason.
        run(() =>
          k
            .selectFrom('decisions')
            .select(['task_id', 'at'])
            .where('outcome', '=', 'acted')
            .where('at', '>=', from)
            .where('task_id', 'is not', null)
            .execute(),
        ),
      ]);
      const touched = new Set(tasks.map((t) => t.id));
      return {
        tasks: tasks.map((t) => ({
          id: t.id,
          repository: t.repository,
          // The ledger does not record which agent ran: '' here, the configured runner's name in app/results.ts.
          agent: '',
          greenAt: t.green_at,
          greenSha: t.green_sha,
          headSha: t.ci_head_sha,
          headSeenAt: t.ci_head_seen_at,
        })),
        reds: reds.map((r) => ({ taskId: r.task_id, at: String(r.at), check: r.check_name })),
        attempts: attempts.map((a) => ({
          taskId: a.task_id,
          at: String(a.first_at),
          lastAt: String(a.last_at),
          count: Number(a.n),
          check: a.check_name ?? (a.source === 'gate' ? null : a.source),
          spend: Number(a.spend),
        })),
        otherSpend: otherSpend
          .filter((s) => touched.has(s.task_id))
          .map((s) => ({ taskId: s.task_id, amount: Number(s.amount) })),
        personActs: acts
          .filter((d) => d.task_id !== null && touched.has(d.task_id))
          .map((d) => ({ taskId: d.task_id!, at: d.at })),
        notices: notices
          .filter((n) => touched.has(n.task_id))
          .map((n) => ({ taskId: n.task_id, at: n.created_at, reason: n.reason })),
      };
    },
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
