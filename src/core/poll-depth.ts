// How deep the poll reads a pull request this tick (SPEC N3, E1, E2; decision 0031). A bulk glance
// shows each pull request's head, state, update time and check rollup; one that shows nothing new,
// whose Task has nothing waiting on a read (no red head to re-offer, no stop to hand off, no state
// comment to keep, no unknown verdict), is only marked polled. Everything else is read in full.
import type { Task } from './types.js';

export interface Glance {
  state: 'open' | 'closed';
  merged: boolean;
  headSha: string;
  updatedAt: string;
  rollup: string | null;
}

/** What the poll remembers of a glance: equal signatures, nothing GitHub shows has moved. */
export function pollSignature(g: Glance): string {
  return [g.headSha, g.merged ? 'merged' : g.state, g.updatedAt, g.rollup ?? 'none'].join(' ');
}

export type PollDepth = { kind: 'skip' } | { kind: 'read'; why: PollReadReason };

export const POLL_READ_REASONS = [
  'no_glance',
  'first_read',
  'changed',
  'head_not_seen',
  'task_moved',
  'verdict_open',
  'loop_stopped',
  'loop_acted',
] as const;
export type PollReadReason = (typeof POLL_READ_REASONS)[number];

type TaskView = Pick<Task, 'ciHeadSha' | 'ciState' | 'noticeAt' | 'stateCommentId'>;

/**
 * `previous` is the signature stored at the Task's last full read (null: none); `glance` what the
 * bulk read shows now (null: it could not be read that way); `taskMoved` whether the Task's own row
 * changed since that read (a person turned its loop off, say: what the pull request shows follows).
 */
export function pollDepth(
  task: TaskView,
  previous: string | null,
  glance: Glance | null,
  taskMoved = false,
): PollDepth {
  if (glance === null) return { kind: 'read', why: 'no_glance' };
  if (previous === null) return { kind: 'read', why: 'first_read' };
  if (previous !== pollSignature(glance)) return { kind: 'read', why: 'changed' };
  if (task.ciHeadSha !== glance.headSha) return { kind: 'read', why: 'head_not_seen' };
  if (taskMoved) return { kind: 'read', why: 'task_moved' };
  // E2: a red head is re-offered each tick (a refusal at a bad moment is retried); unknown has no verdict yet.
  if (task.ciState === 'red' || task.ciState === 'unknown') return { kind: 'read', why: 'verdict_open' };
  // K5: a stop's hand-off reads the labels (approve-one) and the clock (park) every tick.
  if (task.noticeAt !== null) return { kind: 'read', why: 'loop_stopped' };
  // K8, I3: once the loop acted, its state comment is checked for hand edits, and progress looked for.
  if (task.stateCommentId !== null) return { kind: 'read', why: 'loop_acted' };
  return { kind: 'skip' };
}
