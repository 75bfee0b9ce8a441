// The `notices` of the config file (SPEC G1, P4; decision 0025): the sinks Inbox notices are also sent
// to, and how each delivery is retried. A sink's URL is https, or http only to this machine.
import { z } from 'zod';
import { outboundUrlProblem } from '../core/signed-post.js';

/** A notice sink's URL: https, or http only to this machine (G1, P4; decision 0025). */
export const sinkUrl = z.string().superRefine((v, ctx) => {
  const problem = outboundUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
/** A sink's name: its outbox rows and idempotency keys carry it, so it stays short and plain. */
const sinkName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/i, 'must be letters, digits, "_" or "-" (at most 40)');

/** G1/P4: where Inbox notices are also sent. `url` and `secret` may come from the environment instead. */
export const noticesSchema = z.strictObject({
  sinks: z
    .array(
      z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('slack'), name: sinkName.optional(), url: sinkUrl.optional() }),
        z.strictObject({
          kind: z.literal('webhook'),
          name: sinkName.optional(),
          url: sinkUrl,
          secret: z.string().min(1).optional(),
        }),
      ]),
    )
    .default([]),
  /** Tries per delivery, and the backoff between them (decision 0025). */
  retry: z
    .strictObject({
      maxAttempts: z.int().min(1).max(100).default(10),
      initialSeconds: z.number().min(0.01).max(3600).default(30),
      maxSeconds: z.number().min(0.01).max(86_400).default(3600),
    })
    .refine((r) => r.maxSeconds >= r.initialSeconds, {
      message: 'maxSeconds must not be less than initialSeconds',
      path: ['maxSeconds'],
    })
    .prefault({}),
  /** One try's time limit. */
  timeoutSeconds: z.number().min(0.1).max(120).default(10),
});
