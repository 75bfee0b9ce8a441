// The ledger's side of Results (SPEC V1): the plain rows of one period for core/results.ts. Every read
// starts from a `created_at`/`at` index of the period (migration 0023_results_facts), then reads the
// touched Tasks by id in slices, so a month costs what its rows cost, not the whole history; the same
// queries on SQLite and PostgreSQL.
import { sql, type Kysely } from 'kysely';
import type { ResultsRows } from '../core/results.js';
import type { Database } from './schema.js';

/** Ids per `in (…)` list: well under SQLite's and PostgreSQL's limits on bound parameters. */
const SLICE = 900;

export interface ResultsStore {
  /** The rows of [from, to): reds, attempts and notices of the period and the Tasks they name. */
  resultsRows(period: { from: string; to: string }): Promise<ResultsRows>;
}

export function createResultsStore(k: Kysely<Database>): ResultsStore {
  return {
    async resultsRows({ from, to }) {
      const [reds, attempts, notices] = await Promise.all([
        k
          .selectFrom('rejections')
          .select(['task_id', 'created_at', 'check_name'])
          .where('source', '=', 'gate')
          .where('created_at', '>=', from)
          .where('created_at', '<', to)
          .execute(),
        k
          .selectFrom('attempts as a')
          .leftJoin('rejections as r', 'r.id', 'a.rejection_id')
          .select(['a.id', 'a.task_id', 'a.created_at', 'a.source', 'r.check_name'])
          .where('a.created_at', '>=', from)
          .where('a.created_at', '<', to)
          .execute(),
        k
          .selectFrom('notices')
          .select(['task_id', 'created_at', 'reason'])
          .where('created_at', '>=', from)
          .where('created_at', '<', to)
          .execute(),
      ]);
      const ids = [...new Set([...reds.map((r) => r.task_id), ...attempts.map((a) => a.task_id)])];
      const [tasks, spends, acts, laterNotices] = await Promise.all([
        inSlices(ids, (slice) =>
          k
            .selectFrom('tasks')
            .select(['id', 'repository', 'green_at', 'green_sha', 'ci_head_sha', 'ci_head_seen_at'])
            .where('id', 'in', slice)
            .execute(),
        ),
        // Spend reported in the period by these Tasks' runs, with the attempt each run answered.
        inSlices(ids, (slice) =>
          k
            .selectFrom('spends as s')
            .leftJoin('runs as r', 'r.id', 's.run_id')
            .select(['s.task_id', 'r.attempt_id', sql<number>`s.model + s.sandbox`.as('amount')])
            .where('s.task_id', 'in', slice)
            .where('s.created_at', '>=', from)
            .where('s.created_at', '<', to)
            .execute(),
        ),
        // A person's actions from the period's start on: one between a red and its green may fall later.
        k
          .selectFrom('decisions')
          .select(['task_id', 'at'])
          .where('outcome', '=', 'acted')
          .where('at', '>=', from)
          .where('task_id', 'is not', null)
          .execute(),
        // A hand-off after the period's end may still fall between a red of the period and its green.
        k.selectFrom('notices').select(['task_id', 'created_at', 'reason']).where('created_at', '>=', to).execute(),
      ]);
      const spentByAttempt = new Map<number, number>();
      const otherSpend: ResultsRows['otherSpend'][number][] = [];
      for (const s of spends) {
        const amount = Number(s.amount);
        if (s.attempt_id !== null) spentByAttempt.set(s.attempt_id, (spentByAttempt.get(s.attempt_id) ?? 0) + amount);
        else otherSpend.push({ taskId: s.task_id, amount });
      }
      const touched = new Set(ids);
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
        reds: reds.map((r) => ({ taskId: r.task_id, at: r.created_at, check: r.check_name })),
        attempts: attempts.map((a) => ({
          taskId: a.task_id,
          at: a.created_at,
          check: a.check_name ?? (a.source === 'gate' ? null : a.source),
          spend: spentByAttempt.get(a.id) ?? 0,
        })),
        otherSpend,
        personActs: acts
          .filter((d) => d.task_id !== null && touched.has(d.task_id))
          .map((d) => ({ taskId: d.task_id!, at: d.at })),
        notices: [...notices, ...laterNotices]
          .filter((n) => touched.has(n.task_id))
          .map((n) => ({ taskId: n.task_id, at: n.created_at, reason: n.reason })),
      };
    },
  };
}

async function inSlices<T>(ids: readonly number[], read: (slice: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += SLICE) out.push(...(await read(ids.slice(i, i + SLICE))));
  return out;
}
