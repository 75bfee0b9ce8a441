// Plain-data fixtures the unit tests share: a Task and a RunSpec with every field set, so a test
// states only what it is about (the overrides) and a new field is added here once.
import type { Task } from '../../src/core/types.js';
import type { RunSpec } from '../../src/app/ports.js';

export const FIXTURE_AT = '2026-11-30T08:00:00.000Z';

/** An open, red Task on a present branch, nothing noticed, parked or handed off. */
export function taskFixture(over: Partial<Task> = {}): Task {
  return {
    id: 7,
    work: 'shop',
    repository: 'acme/shop',
    pullRequest: 7,
    branch: 'agent/fix',
    state: 'open',
    prState: 'open',
    branchState: 'present',
    isFork: false,
    ciHeadSha: null,
    ciHeadSeenAt: null,
    ciState: 'red',
    noticeAt: null,
    resumeRef: null,
    createdAt: FIXTURE_AT,
    polledAt: null,
    stopRound: 0,
    extraAttempts: 0,
    approveOnePending: false,
    loopOff: false,
    skipLabel: false,
    commitStatus: null,
    baseRef: null,
    prTitle: null,
    prAuthor: null,
    maxGrants: null,
    parkedAt: null,
    handoffAt: null,
    stateCommentId: null,
    adopted: false,
    gate: null,
    ...over,
  };
}

let nextRunId = 1;

/** What a runner is handed; each call gets its own run id unless the test gives one. */
export function runSpecFixture(over: Partial<RunSpec> = {}): RunSpec {
  return {
    taskId: 7,
    runId: nextRunId++,
    attemptId: 3,
    repository: 'acme/widgets',
    pullRequest: 42,
    branch: 'fix/ci',
    headSha: null,
    resumeRef: 'session-1',
    prompt: 'CI is red: fix it.',
    runToken: 'run-token-xyz',
    apiUrl: 'http://127.0.0.1:9999',
    ...over,
  };
}
