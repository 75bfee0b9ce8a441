// A signed delivery whose body does not match its event's schema (SPEC A2): one wording for both
// providers' classifiers, naming the first issue's path and message.
import type { z } from 'zod';
import type { Classification } from './neutral-events.js';

/** A body that does not match its event's schema: rejected, with the first issue's path and message. */
export function shapeMismatch(eventName: string, error: z.ZodError): Classification {
  const first = error.issues[0];
  return {
    kind: 'rejected',
    reason: 'shape_mismatch',
    detail: `${eventName} body: ${first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'invalid'}`,
  };
}
