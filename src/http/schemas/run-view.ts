// A run as the API answers it: the ledger's Run without its token hash (`Run`), and with its captured
// log (`RunDetail`, `GET /api/runs/{id}`).
import { z } from 'zod';
import type { Run as StoredRun } from '../../core/types.js';
import { describes, id } from './common.js';
import { runSummaryFields } from './task-view.js';

const runFields = { ...runSummaryFields, taskId: id };

export const run = z.object(runFields).describe("One execution of the Task's agent.");

export const runDetail = z
  .object({
    ...runFields,
    log: z.string().nullable().describe('The captured (capped) output of the run, if any.'),
  })
  .describe('A run with its log.');

describes<typeof run, StoredRun>(true);
describes<typeof runDetail, StoredRun & { log: string | null }>(true);
