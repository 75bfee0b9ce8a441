// Migrations 0029 and 0031 (issue 36 items 6 and 1), apart from migrations.ts to keep that file short.
import type { Migration } from 'kysely';
import type { Dialect } from './db.js';
import { addColumnOnce, type AnyDb } from './migration-helpers.js';

export function rejectionFindingsMigration(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      // Issue 36 item 6: the fingerprint of an allow-listed bot's findings in the round this row
      // stores, so a later round repeating an answered one is seen after any restart (decision 0070).
      await addColumnOnce(db, dialect, 'rejections', 'findings', 'text');
    },
  };
}

export function mergeQueueMigration(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      // Issue 36 item 1: a red of a merge queue's commit keeps the queue it failed in (its base and the
      // pull requests merged with it, JSON), so the attempt's frame says it fails only combined with them.
      await addColumnOnce(db, dialect, 'rejections', 'merge_queue', 'text');
      // …and the head fixloop put back in the queue after a fix, so it does so once per head.
      await addColumnOnce(db, dialect, 'tasks', 'requeued_head', 'text');
    },
  };
}
