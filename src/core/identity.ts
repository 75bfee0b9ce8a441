// The identity of a CI result: its whole dedupe story (SPEC A3).
// A byte-identical redelivery yields the same string; a re-run has a new id or attempt number.

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
  | { kind: 'status'; repository: string; sha: string; context: string; state: string };

export function ciIdentity(i: CiIdentityInput): string {
  const head = `check:${i.repository}@${i.sha}`;
  switch (i.kind) {
    case 'run':
    case 'suite':
      return `${head}:${i.kind}:${i.id}:${i.status}${i.conclusion ? `:${i.conclusion}` : ''}`;
    case 'workflow':
      return `${head}:workflow:${i.id}#${i.attempt}:${i.status}${i.conclusion ? `:${i.conclusion}` : ''}`;
    case 'status':
      return `${head}:status:${i.context}:${i.state}`;
  }
}

/** Non-CI deliveries dedupe on GitHub's delivery GUID, which a redelivery keeps. */
export function deliveryIdentity(event: string, deliveryId: string): string {
  return `delivery:${event}:${deliveryId}`;
}
