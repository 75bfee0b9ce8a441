// What a code host's webhook is answered (app/ingest.ts IngestAnswer): stored, accepted with nothing
// new stored, or rejected; written to the host's delivery log, so the words are stable.
import { z } from 'zod';
import type { IngestAnswer } from '../../app/ingest.js';
import { EDGE_REASONS } from '../../core/reasons.js';
import { BUILT_IN_HOST_EDGE_REASONS } from '../../wiring/host-reasons.js';
import { codeList, describes, id } from './common.js';

export const webhookStored = z
  .object({
    status: z.literal(202),
    outcome: z.literal('stored'),
    identity: z.string().describe('The identity the event was stored under (A3).'),
    eventId: id,
  })
  .describe('The delivery was committed as a new event.');

const rejectedReasons = [
  'malformed_json',
  'shape_mismatch',
] as const satisfies readonly (typeof EDGE_REASONS)[number][];

export const webhookNotStored = z
  .object({
    status: z.literal(200),
    outcome: z.enum(['duplicate', 'dropped', 'ignored']),
    identity: z.string().nullable(),
    reason: z
      .string()
      .optional()
      .describe(
        `Why nothing new was stored, e.g. ${codeList([...EDGE_REASONS, ...BUILT_IN_HOST_EDGE_REASONS].filter((r) => !(rejectedReasons as readonly string[]).includes(r)))}, \`unknown_event\`.`,
      ),
  })
  .describe(
    'The delivery was accepted and nothing new was stored: a duplicate, an incomplete CI result, or an event with nothing for the loop.',
  );

export const webhookRejected = z
  .object({
    status: z.literal(400),
    outcome: z.literal('rejected'),
    reason: z.enum(rejectedReasons),
    detail: z.string(),
  })
  .describe('A signed delivery whose body is unusable; the rejection is recorded in the decision log.');

describes<typeof webhookStored, Extract<IngestAnswer, { status: 202 }>>(true);
describes<typeof webhookNotStored, Extract<IngestAnswer, { status: 200 }>>(true);
describes<typeof webhookRejected, Extract<IngestAnswer, { status: 400 }>>(true);
