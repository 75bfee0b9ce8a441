// The pull request's `fixloop:skip` label mirrored into its Task (core/skip-label.ts), from a webhook
// or the poll, whichever sees it first; each change is recorded as a person's action (H1), since only
// someone who may label the pull request can add or remove it.
import { SKIP_LABEL, skipLabelled } from '../core/skip-label.js';
import type { Task } from '../core/types.js';
import type { DecisionInput, Ledger } from './ledger-port.js';

export async function mirrorSkipLabel(
  ledger: Pick<Ledger, 'setSkipLabel'>,
  record: (row: DecisionInput) => Promise<unknown>,
  task: Pick<Task, 'id' | 'skipLabel'>,
  labels: readonly string[],
  seenBy: 'webhook' | 'poll',
): Promise<void> {
  const on = skipLabelled(labels);
  if (on === task.skipLabel || !(await ledger.setSkipLabel(task.id, on))) return;
  await record({
    taskId: task.id,
    outcome: 'acted',
    reason: on ? 'loop_off' : 'loop_on',
    detail: `a person (label ${SKIP_LABEL} ${on ? 'added' : 'removed'}, seen by the ${seenBy})`,
  });
}
