// The identity of a CI result: its whole dedupe story (SPEC A3).
// A byte-identical redelivery yields the same string; a re-run has a new id or attempt number.
import { createHash } from 'node:crypto';
import { MAX_CHECK_NAME_CHARS } from './bounded-text.js';

export type CiIdentityInput =
  | { kind: 'run' | 'suite'; repository: string; sha: string; id: number; status: string; conclusion: string | null }
  | {
      kind: 'workflow';
      repository: string;
      sha: string;
      id: number;
      attempt: number;
      status: string;
      conclusion: string | null;
    }
  | { kind: 'status'; repository: string; sha: string; context: string; state: string }
  /** GitLab (issue 19): a job and a pipeline, by GitLab's id; a retried job is a new job id. */
  | { kind: 'job' | 'pipeline'; repository: string; sha: string; id: number; status: string };

export function ciIdentity(i: CiIdentityInput): string {
  const head = `check:${i.repository}@${i.sha}`;
  switch (i.kind) {
    case 'run':
    case 'suite':
      return `${head}:${i.kind}:${i.id}:${i.status}${i.conclusion ? `:${i.conclusion}` : ''}`;
    case 'workflow':
      return `${head}:workflow:${i.id}#${i.attempt}:${i.status}${i.conclusion ? `:${i.conclusion}` : ''}`;
    case 'status':
      return `${head}:status:${contextPart(i.context)}:${i.state}`;
    case 'job':
    case 'pipeline':
      return `${head}:${i.kind}:${i.id}:${i.status}`;
  }
}

/**
 * A status context as its identity holds it: as it is, or, when longer than a check name may be
 * (A1), its head and a digest of the whole, so identities stay short and distinct contexts distinct.
 */
function contextPart(context: string): string {
  if (context.length <= MAX_CHECK_NAME_CHARS) return context;
  const digest = createHash('sha256').update(context).digest('hex').slice(0, 32);
  const head = context.slice(0, MAX_CHECK_NAME_CHARS - 40).replace(/[\uD800-\uDBFF]$/, '');
  return `${head}…#${digest}`;
}

/** Non-CI deliveries dedupe on the delivery's id, which a redelivery keeps (GitHub's GUID, GitLab's Idempotency-Key). */
export function deliveryIdentity(event: string, deliveryId: string): string {
  return `delivery:${event}:${deliveryId}`;
}
