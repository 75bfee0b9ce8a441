// Migrations 0028 (issue 36 item 4, decision 0069) and 0033 (decision 0075), apart from migrations.ts to keep that file short.
import { sql, type Migration } from 'kysely';
import type { Dialect } from './db.js';
import { withId, type AnyDb } from './migration-helpers.js';

export function baseRedsMigration(dialect: Dialect): Migration {
  const id = withId(dialect);
  return {
    async up(db: AnyDb) {
      // Issue 36 item 4 (decision 0069): a red base told once. One row per repository, base branch and
      // red round, unique, so two replicas holding pull requests on the same red file one notice (and
      // one issue); the pull requests it holds join it; its closing is a compare-and-set on closed_at.
      // `if not exists` throughout (see 0005).
      await id(db.schema.createTable('base_reds').ifNotExists())
        .addColumn('repository', 'text', (c) => c.notNull())
        .addColumn('base_ref', 'text', (c) => c.notNull())
        .addColumn('round', 'integer', (c) => c.notNull())
        .addColumn('checks', 'text', (c) => c.notNull())
        .addColumn('base_sha', 'text')
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('issue_number', 'integer')
        .addColumn('opened_at', 'text', (c) => c.notNull())
        .addColumn('closed_at', 'text')
        .addUniqueConstraint('base_reds_round', ['repository', 'base_ref', 'round'])
        .execute();
      await db.schema
        .createTable('base_red_pulls')
        .ifNotExists()
        .addColumn('red_id', 'integer', (c) => c.notNull())
        .addColumn('task_id', 'integer', (c) => c.notNull())
        .addColumn('joined_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('base_red_pulls_pk', ['red_id', 'task_id'])
        .execute();
    },
  };
}

/**
 * Migration 0033 (decision 0075): a red base's notice reaches the notice sinks as a Task's notice does.
 * One row per round, event (`opened`, `healed`) and configured sink, written in the transaction that
 * opens or closes the round; the delivery worker claims due rows by a lease, as in notice_outbox (0012).
 * `message` is what the sink is sent, in the host's words, as said when the round opened or healed.
 */
export function baseRedOutboxMigration(dialect: Dialect): Migration {
  const id = withId(dialect);
  return {
    async up(db: AnyDb) {
      await id(db.schema.createTable('base_red_outbox').ifNotExists())
        .addColumn('red_id', 'integer', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('sink', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_at', 'text', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('delivered_at', 'text')
        .addUniqueConstraint('base_red_outbox_event_sink', ['red_id', 'event', 'sink'])
        .execute();
      await db.schema
        .createIndex('base_red_outbox_pending')
        .ifNotExists()
        .on('base_red_outbox')
        .columns(['sink', 'next_at'])
        .where(sql.ref('state'), '=', 'pending')
        .execute();
    },
  };
}
