// A red base told once (issue 36 item 4, decision 0069), on Kysely. The round's row is unique per
// repository, base branch and round: the first pull request held opens the next round, and of two
// replicas opening it at once the database keeps one (the other joins it). Closing is a
// compare-and-set on closed_at, so the base healing is told once too.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { BaseRed, BaseRedStore } from '../app/ledger-port.js';
import type { BaseRedsTable, Database } from './schema.js';
import { createBaseRedOutboxStore, queueBaseRedIn } from './base-red-outbox.js';

type Q = Kysely<Database> | Transaction<Database>;

function checksOf(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((c): c is string => typeof c === 'string') : [];
  } catch {
    return [];
  }
}

async function redOf(q: Q, row: Selectable<BaseRedsTable>): Promise<BaseRed> {
  const pulls = await q
    .selectFrom('base_red_pulls')
    .innerJoin('tasks', 'tasks.id', 'base_red_pulls.task_id')
    .select('tasks.pr_number')
    .where('base_red_pulls.red_id', '=', row.id)
    .orderBy('base_red_pulls.joined_at')
    .orderBy('base_red_pulls.task_id')
    .execute();
  return {
    id: row.id,
    repository: row.repository,
    baseRef: row.base_ref,
    round: Number(row.round),
    checks: checksOf(row.checks),
    baseSha: row.base_sha,
    message: row.message,
    issueNumber: row.issue_number === null ? null : Number(row.issue_number),
    openedAt: row.opened_at,
    closedAt: row.closed_at,
    pullRequests: pulls.map((p) => Number(p.pr_number)),
  };
}

/** `sinks`: the configured notice sinks, each told when a round opens and when it heals (decision 0075). */
export function createBaseRedStore(
  k: Kysely<Database>,
  now: () => string,
  sinks: readonly string[] = [],
): BaseRedStore {
  const latest = (q: Q, repository: string, baseRef: string) =>
    q
      .selectFrom('base_reds')
      .selectAll()
      .where('repository', '=', repository)
      .where('base_ref', '=', baseRef)
      .orderBy('round', 'desc')
      .limit(1)
      .executeTakeFirst();

  const byId = async (id: number) => {
    const row = await k.selectFrom('base_reds').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? redOf(k, row) : null;
  };

  return {
    ...createBaseRedOutboxStore(k, now, byId),

    joinBaseRed: (input) =>
      k.transaction().execute(async (trx) => {
        const at = now();
        let filed = false;
        // A write first, so the transaction takes the write lock before it reads (on SQLite a read that
        // later writes could not wait for another replica's lock: SQLITE_BUSY); it changes nothing.
        await trx
          .updateTable('base_reds')
          .set({ round: sql`round` })
          .where('repository', '=', input.repository)
          .where('base_ref', '=', input.baseRef)
          .where('closed_at', 'is', null)
          .execute();
        let row = await latest(trx, input.repository, input.baseRef);
        if (!row || row.closed_at !== null) {
          const round = (row ? Number(row.round) : 0) + 1;
          const inserted = await trx
            .insertInto('base_reds')
            .values({
              repository: input.repository,
              base_ref: input.baseRef,
              round,
              checks: JSON.stringify([...new Set(input.checks)].sort()),
              base_sha: input.baseSha,
              message: input.message,
              issue_number: null,
              opened_at: at,
              closed_at: null,
            })
            .onConflict((oc) => oc.columns(['repository', 'base_ref', 'round']).doNothing())
            .returning('id')
            .executeTakeFirst();
          filed = inserted !== undefined;
          // The sinks are told once, by the one that filed it, in the same transaction (decision 0075).
          if (inserted) await queueBaseRedIn(trx, Number(inserted.id), 'opened', input.message, sinks, at);
          // Lost to another replica's insert of the same round: join theirs.
          row = await latest(trx, input.repository, input.baseRef);
          if (!row) throw new Error(`base red of ${input.repository}@${input.baseRef} vanished`);
        } else {
          const checks = [...new Set([...checksOf(row.checks), ...input.checks])].sort();
          if (checks.length !== checksOf(row.checks).length) {
            await trx
              .updateTable('base_reds')
              .set({ checks: JSON.stringify(checks) })
              .where('id', '=', row.id)
              .execute();
            row = { ...row, checks: JSON.stringify(checks) };
          }
        }
        await trx
          .insertInto('base_red_pulls')
          .values({ red_id: row.id, task_id: input.taskId, joined_at: at })
          .onConflict((oc) => oc.columns(['red_id', 'task_id']).doNothing())
          .execute();
        return { red: await redOf(trx, row), filed };
      }),

    async setBaseRedIssue(id, issueNumber) {
      const r = await k
        .updateTable('base_reds')
        .set({ issue_number: issueNumber })
        .where('id', '=', id)
        .where('issue_number', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async openBaseReds(limit) {
      const rows = await k
        .selectFrom('base_reds')
        .selectAll()
        .where('closed_at', 'is', null)
        .orderBy('id')
        .limit(limit)
        .execute();
      return Promise.all(rows.map((r) => redOf(k, r)));
    },

    closeBaseRed: (id, healed) =>
      k.transaction().execute(async (trx) => {
        const at = now();
        const r = await trx
          .updateTable('base_reds')
          .set({ closed_at: at })
          .where('id', '=', id)
          .where('closed_at', 'is', null)
          .executeTakeFirst();
        const closed = Number(r.numUpdatedRows) === 1;
        if (closed && healed !== undefined) await queueBaseRedIn(trx, id, 'healed', healed, sinks, at);
        return closed;
      }),
  };
}
