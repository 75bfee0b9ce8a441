// In-memory fakes of our own ports for the agent's side (SPEC I1–I4, K6): the AgentLedger and the
// part of the Ledger the agent ops read, over one plain world of Tasks, runs and attempts. They keep
// the rules the real ledger keeps in SQL — first-write outcome, compare-and-set lifecycle moves,
// lookup by the token's sha256 only — and expose hooks to make another writer act in between.
import { createHash } from 'node:crypto';
import type { AgentLedger, AttemptLife } from '../../src/app/agent-port.js';
import type { DecisionInput, Ledger } from '../../src/app/ledger-port.js';
import type { AttemptState } from '../../src/core/attempt-state.js';
import type { Attempt, Notice, Rejection, Run, RunState, Task } from '../../src/core/types.js';
import { taskFixture } from './fixtures.js';

export const FAKE_NOW = '2026-11-30T08:00:00.000Z';

export interface FakeSpend {
  taskId: number;
  runId: number | null;
  model: number;
  sandbox: number;
  note: string | null;
}

export interface AgentWorld {
  tasks: Map<number, Task>;
  runs: Map<number, Run & { tokenHash: string | null }>;
  attempts: Map<number, Attempt>;
  lives: Map<number, AttemptLife>;
  rejections: Rejection[];
  notices: Map<number, Notice>;
  spends: FakeSpend[];
  ciMinutes: Array<{ taskId: number; headSha: string; minutes: number }>;
  decisions: DecisionInput[];
  /** Every token hash looked up (never a plain token). */
  lookups: string[];
  hooks: {
    /** Runs before each moveAttempt's compare: another writer may move the attempt here. */
    beforeMove?: (attemptId: number) => void;
    /** Runs before recordOutcome's first-write check: another report may land here. */
    beforeRecordOutcome?: (attemptId: number) => void;
    /** Make recordDecisions fail. */
    decisionsFail?: boolean;
  };
  agent: AgentLedger;
  ledger: Ledger;
  addTask(over?: Partial<Task>): Task;
  /** A run of the Task with its token; `attempt` makes it an automatic resume with an attempt in that lifecycle state. */
  addRun(
    taskId: number,
    opts: { token: string; state?: RunState; attempt?: { state?: AttemptState; headSha?: string | null } | null },
  ): { run: Run; attempt: Attempt | null };
  endRun(runId: number, state?: 'completed' | 'failed' | 'cancelled'): void;
}

export function sha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createAgentWorld(): AgentWorld {
  let nextId = 1;
  const w = {
    tasks: new Map(),
    runs: new Map(),
    attempts: new Map(),
    lives: new Map(),
    rejections: [],
    notices: new Map(),
    spends: [],
    ciMinutes: [],
    decisions: [],
    lookups: [],
    hooks: {},
  } as unknown as AgentWorld;

  const plainRun = (r: Run & { tokenHash: string | null }): Run => {
    const { tokenHash: _hidden, ...run } = r;
    return { ...run };
  };

  w.agent = {
    async runByTokenHash(tokenHash) {
      w.lookups.push(tokenHash);
      const r = [...w.runs.values()].find((x) => x.tokenHash === tokenHash);
      if (!r) return null;
      const task = w.tasks.get(r.taskId);
      if (!task) return null;
      const attempt = r.attemptId === null ? null : (w.attempts.get(r.attemptId) ?? null);
      return { run: plainRun(r), task: { ...task }, attempt: attempt ? { ...attempt } : null };
    },
    async markAgentSeen(runId, at) {
      const r = w.runs.get(runId);
      if (r && r.agentSeenAt === null) r.agentSeenAt = at;
    },
    async life(id) {
      const l = w.lives.get(id);
      return l ? { ...l } : null;
    },
    async lives(taskId) {
      return [...w.lives.values()]
        .filter((l) => l.taskId === taskId)
        .sort((a, b) => a.attemptId - b.attemptId)
        .map((l) => ({ ...l }));
    },
    async livesInState(states) {
      return [...w.lives.values()].filter((l) => states.includes(l.state)).map((l) => ({ ...l }));
    },
    async moveAttempt(id, from, to, extra) {
      w.hooks.beforeMove?.(id);
      const l = w.lives.get(id);
      if (!l || !from.includes(l.state)) return false;
      l.state = to;
      if (extra?.actionTakenAt !== undefined) l.actionTakenAt = extra.actionTakenAt;
      if (extra?.baseline !== undefined) l.baseline = extra.baseline;
      return true;
    },
    async recordOutcome(id, outcome, reason, at) {
      w.hooks.beforeRecordOutcome?.(id);
      const l = w.lives.get(id);
      if (!l || l.outcome !== null) return false;
      l.outcome = outcome;
      l.outcomeReason = reason;
      l.outcomeAt = at;
      return true;
    },
    async setDiffHash(id, hash) {
      const l = w.lives.get(id);
      if (l) l.diffHash = hash;
    },
    async markRetry(id, retryOf) {
      const l = w.lives.get(id);
      if (l) l.retryOf = retryOf;
    },
    async addSpend(s) {
      w.spends.push({ ...s });
    },
    async spendTotals(taskId) {
      const mine = w.spends.filter((s) => s.taskId === taskId);
      return {
        model: mine.reduce((n, s) => n + s.model, 0),
        sandbox: mine.reduce((n, s) => n + s.sandbox, 0),
        ciMinutes: w.ciMinutes.filter((c) => c.taskId === taskId).reduce((n, c) => n + c.minutes, 0),
      };
    },
    async spendPerAttempt() {
      return [];
    },
    async setCiMinutes(taskId, headSha, minutes) {
      w.ciMinutes = w.ciMinutes.filter((c) => !(c.taskId === taskId && c.headSha === headSha));
      w.ciMinutes.push({ taskId, headSha, minutes });
    },
    async markHuman() {},
    async humanAt() {
      return null;
    },
  };

  const ledger: Partial<Ledger> = {
    now: () => FAKE_NOW,
    async getTask(id) {
      const t = w.tasks.get(id);
      return t ? { ...t } : null;
    },
    async getRun(id) {
      const r = w.runs.get(id);
      return r ? { ...r } : null;
    },
    async listAttempts(taskId) {
      return [...w.attempts.values()].filter((a) => a.taskId === taskId).sort((a, b) => a.id - b.id);
    },
    async countAttempts(taskId) {
      return [...w.attempts.values()].filter((a) => a.taskId === taskId).length;
    },
    async listRuns(taskId) {
      return [...w.runs.values()].filter((r) => r.taskId === taskId).map(plainRun);
    },
    async listRejections(taskId) {
      return w.rejections.filter((r) => r.taskId === taskId);
    },
    async getNotice(taskId) {
      return w.notices.get(taskId) ?? null;
    },
    async recordDecisions(rows) {
      if (w.hooks.decisionsFail) throw new Error('decision log unavailable');
      w.decisions.push(...rows);
    },
  };
  w.ledger = ledger as Ledger;

  w.addTask = (over = {}) => {
    const id = nextId++;
    const task: Task = taskFixture({
      id,
      ciHeadSha: 'c'.repeat(40),
      ciHeadSeenAt: FAKE_NOW,
      resumeRef: 'session-1',
      createdAt: FAKE_NOW,
      ...over,
    });
    w.tasks.set(id, task);
    return task;
  };

  w.addRun = (taskId, opts) => {
    const task = w.tasks.get(taskId);
    if (!task) throw new Error(`no task ${taskId}`);
    const runId = nextId++;
    let attempt: Attempt | null = null;
    if (opts.attempt) {
      const id = nextId++;
      const headSha = opts.attempt.headSha === undefined ? task.ciHeadSha : opts.attempt.headSha;
      attempt = {
        id,
        taskId,
        coordinate: headSha ?? `review:${id}`,
        source: 'gate',
        headSha,
        fingerprint: `fp-${id}`,
        status: 'dispatched',
        state: 'running',
        outcome: null,
        outcomeReason: null,
        rejectionId: null,
        runId,
        interruptions: 0,
        createdAt: FAKE_NOW,
      };
      w.attempts.set(id, attempt);
      w.lives.set(id, {
        attemptId: id,
        taskId,
        state: opts.attempt.state ?? 'running',
        outcome: null,
        outcomeReason: null,
        outcomeAt: null,
        actionTakenAt: null,
        baseline: null,
        diffHash: null,
        retryOf: null,
        headSha,
        createdAt: FAKE_NOW,
      });
    }
    const run: Run & { tokenHash: string | null } = {
      id: runId,
      taskId,
      action: attempt ? 'resume' : 'start',
      autoResume: attempt !== null,
      state: opts.state ?? 'running',
      attemptId: attempt?.id ?? null,
      agentSeenAt: null,
      interruptedAt: null,
      createdAt: FAKE_NOW,
      tokenHash: sha256(opts.token),
    };
    w.runs.set(runId, run);
    return { run: plainRun(run), attempt };
  };

  w.endRun = (runId, state = 'completed') => {
    const r = w.runs.get(runId);
    if (!r) throw new Error(`no run ${runId}`);
    r.state = state;
  };

  return w;
}
