// The global stop flag on Kysely (SPEC D): one row of the settings table.
import type { Kysely } from 'kysely';
import type { StopFlag } from '../app/ledger-port.js';
import type { Database } from './schema.js';

const STOP_KEY = 'stopped';

export function createStopFlag(k: Kysely<Database>): StopFlag {
  return {
    async readStopFlag() {
      const r = await k.selectFrom('settings').select('value').where('key', '=', STOP_KEY).executeTakeFirst();
      return r?.value === 'true';
    },

    async writeStopFlag(stopped) {
      await k
        .insertInto('settings')
        .values({ key: STOP_KEY, value: String(stopped) })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(stopped) }))
        .execute();
    },
  };
}
