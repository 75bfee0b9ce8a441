// Acme Forge's deliveries as neutral events (a fake third code host, test-only): a finished build
// step is a `ci.result` on its change request's head. Pure, never throws, like every classifier.
import type { Classification } from '../../../../src/core/neutral-events.js';
import { ciIdentity } from '../../../../src/core/identity.js';
import { verdictOfConclusion } from '../../../../src/core/verdict.js';
import { ACME_EVENTS, buildFinishedPayload } from './payloads.js';

export const ACME_HOST_ID = 'acme';

export const isAcmeEvent = (name: string): boolean => (ACME_EVENTS as readonly string[]).includes(name);

/** Acme's outcomes in the conclusion words the core judges (verdict.ts). */
const CONCLUSION = { passed: 'success', failed: 'failure', cancelled: 'cancelled' } as const;

export function classifyAcmeDelivery(eventName: string, body: unknown, _deliveryId: string): Classification {
  if (eventName !== 'build.finished') return { kind: 'unknown_event' };
  const parsed = buildFinishedPayload.safeParse(body);
  if (!parsed.success)
    return { kind: 'rejected', reason: 'shape_mismatch', detail: parsed.error.message.slice(0, 300) };
  const { change, build } = parsed.data;
  const repository = parsed.data.repository.toLowerCase();
  const conclusion = CONCLUSION[build.outcome];
  return {
    kind: 'event',
    event: {
      source: ACME_HOST_ID,
      kind: 'ci.result',
      ciKind: 'run',
      identity: ciIdentity({
        kind: 'run',
        repository,
        sha: change.head,
        id: build.id,
        status: 'completed',
        conclusion,
      }),
      repository,
      sha: change.head,
      name: build.step,
      conclusion,
      verdict: verdictOfConclusion(conclusion),
      completedAt: new Date(build.finishedAt).toISOString(),
      pointers: [{ number: change.id, headSha: change.head, fork: false }],
      fork: false,
      branch: change.branch,
      // A delivery carries no log: the frame reads the step's log through the port (readJobLog).
      output: '',
      url: build.url,
    },
  };
}
