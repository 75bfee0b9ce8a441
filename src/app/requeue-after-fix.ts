// Issue 36, per Work (`requeueAfterFix`): once the fix of a merge-queue failure is green, the pull
// request goes back in the merge queue — once per head, across replicas (the ledger's compare-and-set),
// only while its head is still the green one (the host refuses a moved head). A refusal is recorded in
// the decision log with the host's words and nothing is retried: a person can always queue it by hand.
import { shouldRequeue } from '../core/merge-queue.js';
import { routeRepository } from '../core/route.js';
import type { Task, Work } from '../core/types.js';
import type { Ledger } from './ledger-port.js';
import type { ProviderPort } from './provider-port.js';
import type { Logger } from './ports.js';

export interface RequeueDeps {
  works: readonly Work[];
  ledger: Pick<Ledger, 'listAttempts' | 'getRejection' | 'claimRequeue' | 'recordDecisions'>;
  host: Pick<ProviderPort, 'enqueuePullRequest'>;
  logger: Logger;
}

/** Told of each head the poll found passing; never throws (a failure is logged and recorded). */
export type RequeueAfterFix = (task: Task, greenHead: string) => Promise<void>;

export function createRequeueAfterFix(deps: RequeueDeps): RequeueAfterFix {
  return async (task, greenHead) => {
    try {
      const route = routeRepository(deps.works, task.repository);
      const enabled = route.kind === 'data' && route.work.requeueAfterFix === true;
      if (!enabled) return;
      const last = (await deps.ledger.listAttempts(task.id)).filter((a) => a.source === 'gate').at(-1) ?? null;
      const rejection = last?.rejectionId != null ? await deps.ledger.getRejection(last.rejectionId) : null;
      const lastAttempt = last && { headSha: last.headSha, answeredQueue: rejection?.queue != null };
      if (!shouldRequeue({ enabled, lastAttempt, greenHead })) return;
      if (!(await deps.ledger.claimRequeue(task.id, greenHead))) return;
      const at = `${task.repository}#${task.pullRequest} at ${greenHead.slice(0, 12)}`;
      try {
        if (!deps.host.enqueuePullRequest) throw new Error('the host has no merge queue fixloop can use');
        await deps.host.enqueuePullRequest(task.repository, task.pullRequest, greenHead);
        await deps.ledger.recordDecisions([
          { taskId: task.id, outcome: 'requeued', reason: 'requeued', detail: `put back in the merge queue: ${at}` },
        ]);
      } catch (err) {
        const why = String((err as Error)?.message ?? err).slice(0, 300);
        await deps.ledger.recordDecisions([
          { taskId: task.id, outcome: 'requeued', reason: 'requeue_refused', detail: `${at}: ${why}` },
        ]);
      }
    } catch (err) {
      deps.logger.warn({ err, taskId: task.id }, 'requeue after fix failed');
    }
  };
}
