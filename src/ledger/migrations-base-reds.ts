// Migration 0028 (issue 36 item 4, decision 0069), apart from migrations.ts to keep that file short.
import type { Migration } from 'kysely';
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
