// What Acme Forge delivers (a fake third code host, test-only): one event, `build.finished`, a build
// step of a change request's head that ended. Parsed at the edge, as every host's payloads are.
import { z } from 'zod';

export const ACME_EVENTS = ['build.finished'] as const;

export const buildFinishedPayload = z.object({
  repository: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/),
  change: z.object({ id: z.int().positive(), head: z.string().regex(/^[0-9a-f]{40}$/), branch: z.string().min(1) }),
  build: z.object({
    id: z.int().positive(),
    step: z.string().min(1),
    outcome: z.enum(['passed', 'failed', 'cancelled']),
    finishedAt: z.iso.datetime(),
    url: z.url().nullable().default(null),
  }),
});
export type BuildFinished = z.infer<typeof buildFinishedPayload>;
