// One row of the decision log as `GET /api/deliveries` answers it: what became of a delivery or an
// evaluation step, and why, in the closed words of core/reasons.ts.
import { z } from 'zod';
import type { Decision as StoredDecision } from '../../app/ledger-port.js';
import { EDGE_REASONS, OUTCOMES, PERSON_ACTIONS, REFUSALS, STOP_REASONS } from '../../core/reasons.js';
import { BUILT_IN_HOST_EDGE_REASONS } from '../../wiring/host-reasons.js';
import { codeList, describes, id, nullableId, timestamp } from './common.js';

const reasonWords =
  'Why the outcome happened, or null. When `outcome` is `refused` it is one of the closed refusal list: ' +
  `${codeList(REFUSALS)}. When it is \`rejected\`, \`ignored\` or \`dropped\` at the edge it is one of ` +
  `${codeList([...EDGE_REASONS, ...BUILT_IN_HOST_EDGE_REASONS])} (or \`unknown_event\`). When it is \`noticed\` it is the stop reason ` +
  `(${codeList(STOP_REASONS)}). When it is \`acted\` (a person, from the dashboard or the API) it is the action: ${codeList(PERSON_ACTIONS)}. When it is \`reported\` (a resumed run's own report) it is \`outcome_<outcome>\` or \`spend_reported\`; other outcomes may carry an informational reason such as \`identity_seen\`, ` +
  '`dispatch_unknown`, `run_lost` (a command agent that ended while no fixloop process watched it), `run_interrupted` (a shutdown stopped the agent after its grace; its attempt is offered again once, free), `pull_request_state` or `merge_queue_commit` (a commit the merge queue built, kept to name the pull requests ahead of a later one).';

export const decision = z
  .object({
    id,
    at: timestamp,
    deliveryId: z.string().nullable().describe('The X-GitHub-Delivery id, when the decision is about a delivery.'),
    eventName: z.string().nullable(),
    identity: z.string().nullable().describe('The event identity (A3).'),
    eventId: nullableId,
    taskId: nullableId,
    attemptId: nullableId,
    outcome: z.enum(OUTCOMES),
    reason: z
      .string()
      .nullable()
      .meta({ description: reasonWords, examples: [...REFUSALS] }),
    detail: z.string().nullable(),
  })
  .describe('One row of the decision log: what became of a delivery or an evaluation step.');

describes<typeof decision, StoredDecision>(true);
