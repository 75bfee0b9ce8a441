// A head's checks read back from the deliveries stored for it (SPEC T2, T6; decision 0029): the latest
// result of each check run and commit status, what its output shows, which checks went red and then
// green on that commit (flaky), and the newest red. Suites and workflow runs are left out: they sum
// up their jobs and carry no output of their own. Pure: stored payloads are classified again, each by
// `classify` (the host registry's, which hands a delivery to the host that owns its event name).
import type { CheckResult, ClassifyDelivery } from './neutral-events.js';
import { evidenceOf } from './fingerprint.js';
import type { HeadCheck } from './unchanged-failure.js';

/** A stored delivery of the head, as the ledger keeps it, oldest first. */
export interface StoredHeadDelivery {
  id: number;
  eventName: string;
  deliveryId: string;
  payload: string;
  receivedAt: string;
}

export interface HeadChecks {
  /** Each check's results in order of arrival (HeadCheck's later entries replace earlier ones). */
  checks: HeadCheck[];
  /** Checks seen red and then green on this commit (a re-run passed). */
  flaky: string[];
  /** The newest red check run or status, with the stored event it came from. */
  newestRed: { eventId: number; result: CheckResult } | null;
  /** The ids of the check runs whose latest result is red (what a re-run of the failed jobs covers). */
  redCheckRunIds: number[];
  /** When the head's first CI delivery (of any kind) arrived; null when none is stored. */
  firstAt: string | null;
}

/** The check run id a run's identity carries (`check:<repo>@<sha>:run:<id>:…`, core/identity.ts). */
export function checkRunIdOf(identity: string): number | null {
  const m = /:run:(\d+):/.exec(identity);
  return m ? Number(m[1]) : null;
}

export function headChecksOf(stored: readonly StoredHeadDelivery[], classify: ClassifyDelivery): HeadChecks {
  const checks: HeadCheck[] = [];
  const latest = new Map<string, { verdict: CheckResult['verdict']; identity: string }>();
  const flaky = new Set<string>();
  const wasRed = new Set<string>();
  let newestRed: HeadChecks['newestRed'] = null;
  let firstAt: string | null = null;
  for (const s of stored) {
    let body: unknown;
    try {
      body = JSON.parse(s.payload);
    } catch {
      continue; // stored as signed; a body that is not JSON was never an event
    }
    const c = classify(s.eventName, body, s.deliveryId);
    if (c.kind !== 'event' || c.event.kind !== 'ci.result') continue;
    const r = c.event;
    firstAt ??= s.receivedAt;
    if (r.ciKind !== 'run' && r.ciKind !== 'status') continue;
    const name = r.name.trim();
    checks.push({ name, verdict: r.verdict, evidence: evidenceOf(r.output) });
    latest.set(name, { verdict: r.verdict, identity: r.identity });
    if (r.verdict === 'red') {
      wasRed.add(name);
      newestRed = { eventId: s.id, result: r };
    } else if (r.verdict === 'green' && wasRed.has(name)) flaky.add(name);
  }
  const redCheckRunIds = [...latest.values()]
    .filter((l) => l.verdict === 'red')
    .map((l) => checkRunIdOf(l.identity))
    .filter((id): id is number => id !== null);
  return { checks, flaky: [...flaky], newestRed, redCheckRunIds, firstAt };
}
