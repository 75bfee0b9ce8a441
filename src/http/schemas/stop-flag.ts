// The stop flag's answer when the ledger cannot read it (K2): the loop fails closed.
import { z } from 'zod';

export const stopFlagUnreadable = z
  .object({ stopped: z.null(), error: z.literal('unreadable') })
  .describe('The stop flag could not be read; the loop fails closed.');
