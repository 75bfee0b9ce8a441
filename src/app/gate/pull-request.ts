// A pull request changed (SPEC B1, B5, M4, issue 3 §9): adopt it as a Task when the Work's rules say
// so, record its state and skip label, and move the Task's head to the pull request's own head.
// Nothing is claimed here: a pull request event only keeps the Task true to the host.
import type { PullRequestChange } from '../../core/neutral-events.js';
import { decidePullRequestHead } from '../../core/head-order.js';
import { routeRefusalWords, routeRepository } from '../../core/route.js';
import { adoptPullRequest } from '../../core/adoption.js';
import { mirrorSkipLabel } from '../skip-label.js';
import { syncBranch, type BranchPort } from './branch.js';
import type { Outcomes } from './outcome.js';
import { queueEjected, type QueueEjectionPort } from './queue-ejection.js';
import type { EvaluateDeps, EvaluateLedger, Evaluation, EvaluationResult } from './ports.js';

/** Creates and adopts Tasks, records the pull request's state and label, moves the head. */
export type PullRequestPort = Pick<EvaluateDeps, 'works' | 'newHead'> & {
  ledger: Pick<
    EvaluateLedger,
    'findTaskByPullRequest' | 'createTask' | 'markAdopted' | 'updatePullRequest' | 'setSkipLabel' | 'advanceHead'
  >;
  end: Outcomes;
} & BranchPort & { ledger: QueueEjectionPort['ledger'] };

export async function pullRequestChanged(
  port: PullRequestPort,
  ev: Evaluation,
  e: PullRequestChange,
): Promise<EvaluationResult> {
  const { ledger, end } = port;
  const route = routeRepository(port.works, e.repository);
  if (route.kind === 'refuse') return end.refuse(ev, route.reason, routeRefusalWords(route, e.repository));
  let task = await ledger.findTaskByPullRequest(e.repository, [e.number]);
  if (!task) {
    // Issue 3 §9: a pull request opened on a matching branch or by a listed author becomes a Task.
    const rules = route.work.repositories.find((r) => r.name.toLowerCase() === e.repository)?.adopt;
    if (!rules || !['opened', 'reopened', 'ready_for_review'].includes(e.action) || e.prState !== 'open')
      return end.refuse(ev, 'no_task');
    const verdict = adoptPullRequest(
      {
        repository: e.repository,
        number: e.number,
        headRef: e.branch,
        headRepository: e.headRepository,
        baseRepository: e.repository,
        author: e.author,
        draft: e.draft,
      },
      rules,
    );
    if (!verdict.adopt) return end.refuse(ev, 'not_adopted', verdict.reason);
    const created = await ledger.createTask({
      work: route.work.name,
      repository: e.repository,
      pullRequest: e.number,
      branch: e.branch,
      resumeRef: null,
    });
    task = created.task;
    if (!('kind' in created)) {
      await ledger.markAdopted(task.id);
      end.log({
        ...ev.base,
        taskId: task.id,
        outcome: 'stored',
        reason: 'adopted',
        detail: `${e.repository}#${e.number} on ${e.branch}`,
      });
    }
  }
  ev.task = task;
  await ledger.updatePullRequest(task.id, { prState: e.prState, isFork: e.fork, baseRef: e.baseRef });
  await mirrorSkipLabel(ledger, async (row) => end.log({ ...ev.base, ...row }), task, e.labels, 'webhook');
  // B1, B5: the pull request's own head is the truest pointer there is; a push moves the head off
  // the commit it replaced whatever the clock says, anything else by the clock (decision 0019).
  const head = decidePullRequestHead(e, task);
  if (head.kind === 'advance' && (await ledger.advanceHead(task.id, e.headSha, head.seenAt, 'pending', head.move)))
    await port.newHead?.(task.id, e.headSha); // I3: a new head seen by webhook is progress at once
  end.log({
    ...ev.base,
    taskId: task.id,
    outcome: 'stored',
    reason: 'pull_request_state',
    detail: `${e.action}${e.dequeued ? ` (${e.dequeued})` : ''}: ${e.prState}${head.kind === 'refuse' ? `; head kept (${head.reason}: ${head.detail})` : ''}`,
  });
  // Issue 36: the head against its base, as the event reports it (the poll reads it again each tick).
  if (e.prState === 'open' && e.mergeableState) await syncBranch(port, ev.base, task.id, e.headSha, e.mergeableState);
  // Issue 36: a merge queue's ejection for a reason no agent can fix goes to a person.
  return (await queueEjected(port, ev, task, e)) ?? { kind: 'recorded', taskId: task.id };
}
