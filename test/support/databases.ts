// Run a suite against both databases: a fresh SQLite file and a fresh PostgreSQL database with a
// unique name, dropped when done. PostgreSQL is the machine's server (127.0.0.1:5432, trust auth).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { tempDir } from './temp-dir.js';

export const PG_ADMIN_URL = process.env.FIXLOOP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  kind: 'sqlite' | 'postgres';
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(kind: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    // Dropped by the test when done; removed at process exit all the same when the test failed first.
    const dir = tempDir('fixloop-test-');
    return {
      kind,
      url: `sqlite:${join(dir, 'fixloop.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `fixloop_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  return {
    kind,
    url,
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export const DATABASE_KINDS = ['sqlite', 'postgres'] as const;
