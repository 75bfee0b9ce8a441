// Controls on the pull request (issue 16): the label `fixloop:skip` keeps the loop away from a pull
// request while it is on: the gate refuses `skip_label`, whatever else the Task says. Mirrored into
// the Task from the pull request's labels, by its webhooks and by the poll; removing the label brings
// the loop back. A person's own switch (`/fixloop off`, the dashboard) is separate and stays as set.
import { hasLabel } from './handoff.js';

export const SKIP_LABEL = 'fixloop:skip';

export function skipLabelled(labels: readonly string[]): boolean {
  return hasLabel(labels, SKIP_LABEL);
}
