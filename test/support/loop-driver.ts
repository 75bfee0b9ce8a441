// Driving the attempt lifecycle (SPEC I1–I4, K6, K7, K9) end to end from a scenario: a fixloop on the
// fake GitHub that can be closed and started again on the same database and the same fake (I4), the
// run API called with the run token an agent was handed, and plain reads of the attempts table —
// the ledger is the truth, so the lifecycle is asserted on `attempts.state` itself.
import assert from 'node:assert/strict';
import type { FixloopAdapters, Fixloop } from '../../src/main.js';
import type { RunnerCallbacks, RunSpec } from '../../src/app/ports.js';
import { startFakeGitHub, type FakeGitHub } from './fake-github/server.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { BOT_LOGIN, FakeClock, openOnFake, type GitHubHarness } from './github-harness.js';
import { RecordingRunner, type Harness } from './harness.js';

/** The default poll interval (config `poll.intervalSeconds` 120). */
export const POLL_MS = 120_000;
/** The attempt states that count as "in flight" for K7 (the partial unique index's predicate). */
export const IN_FLIGHT = ['queued', 'running', 'awaiting_progress'] as const;

export { sha } from './github-harness.js';

/**
 * A RecordingRunner that also notes the attempt's lifecycle state as the runner is asked to start
 * it (it must still be `queued` then: the move to `running` follows the runner's acceptance).
 */
export class PeekingRunner extends RecordingRunner {
  readonly statesAtStart: Array<string | null> = [];
  app: Fixloop | null = null;
  override async start(spec: RunSpec, cb: RunnerCallbacks): Promise<void> {
    if (this.app && spec.attemptId != null) {
      const row = await this.app.db.kysely
        .selectFrom('attempts')
        .select('state')
        .where('id', '=', spec.attemptId)
        .executeTakeFirst();
      this.statesAtStart.push(row?.state ?? null);
    }
    return super.start(spec, cb);
  }
}

export interface RestartableOptions {
  env?: Record<string, string>;
  configExtra?: Record<string, unknown>;
  adapters?: FixloopAdapters;
}

/** One fixloop process at a time on a database and a fake GitHub that outlive it. */
export interface RestartableGitHubHarness {
  /** The process running now. */
  readonly h: GitHubHarness;
  readonly db: TestDatabase;
  readonly fake: FakeGitHub;
  readonly clock: FakeClock;
  /** Close the process (as a redeploy would) and start a new one on the same database and fake. */
  restart(adapters?: FixloopAdapters, runner?: RecordingRunner): Promise<GitHubHarness>;
  /** Close the process only; `start` opens a new one (for changing the database while it is down). */
  stop(): Promise<void>;
  start(adapters?: FixloopAdapters, runner?: RecordingRunner): Promise<GitHubHarness>;
  close(): Promise<void>;
}

export async function startRestartableGitHubHarness(
  kind: 'sqlite' | 'postgres',
  opts: RestartableOptions = {},
): Promise<RestartableGitHubHarness> {
  const db = await createTestDatabase(kind);
  const fake = await startFakeGitHub();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  const token = fake.addUserToken(BOT_LOGIN);

  const open = (
    adapters: FixloopAdapters = {},
    runner: RecordingRunner = new RecordingRunner(),
  ): Promise<GitHubHarness> =>
    openOnFake(
      kind,
      { fake, clock, token },
      {
        db,
        runner,
        ...(opts.env ? { env: opts.env } : {}),
        ...(opts.configExtra ? { configExtra: opts.configExtra } : {}),
        adapters: { ...opts.adapters, ...adapters },
      },
    );

  let current: GitHubHarness | null = await open();
  return {
    get h() {
      if (!current) throw new Error('no fixloop process is running');
      return current;
    },
    db,
    fake,
    clock,
    async restart(adapters, runner) {
      await current?.app.close();
      current = await open(adapters, runner);
      return current;
    },
    async stop() {
      await current?.app.close();
      current = null;
    },
    async start(adapters, runner) {
      if (current) throw new Error('a fixloop process is already running');
      current = await open(adapters, runner);
      return current;
    },
    async close() {
      await current?.app.close();
      current = null;
      await db.drop();
      fake.assertNoViolations();
      await fake.close();
    },
  };
}

/** The run API as an agent's curl calls it: the run token as bearer. */
export async function runApi(
  h: Pick<Harness, 'url'>,
  token: string,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** POST /api/run/outcome with the run's own token; asserts it was accepted. */
export async function reportOutcome(
  h: Pick<Harness, 'url'>,
  spec: RunSpec,
  outcome: 'action_taken' | 'non_actionable' | 'blocked',
  reason?: string,
): Promise<{ attemptId: number; state: string; outcome: string }> {
  const res = await runApi(h, spec.runToken, 'POST', '/api/run/outcome', {
    outcome,
    ...(reason !== undefined ? { reason } : {}),
  });
  assert.equal(res.status, 200, `outcome ${outcome}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface AttemptRow {
  id: number;
  coordinate: string;
  state: string;
  status: string;
  outcome: string | null;
  outcome_reason: string | null;
  retry_of: number | null;
  head_sha: string | null;
  run_id: number | null;
}

/** The Task's attempts as the database holds them, oldest first. */
export async function attemptRows(app: Fixloop, taskId: number): Promise<AttemptRow[]> {
  return app.db.kysely
    .selectFrom('attempts')
    .select(['id', 'coordinate', 'state', 'status', 'outcome', 'outcome_reason', 'retry_of', 'head_sha', 'run_id'])
    .where('task_id', '=', taskId)
    .orderBy('id')
    .execute();
}

/** Tasks with more than one attempt in flight — K7 says this is always empty. */
export async function tasksWithTwoInFlight(app: Fixloop): Promise<Array<{ task_id: number; n: number }>> {
  const rows = await app.db.kysely
    .selectFrom('attempts')
    .select((eb) => ['task_id', eb.fn.countAll<number>().as('n')])
    .where('state', 'in', [...IN_FLIGHT])
    .groupBy('task_id')
    .execute();
  return rows.map((r) => ({ task_id: r.task_id, n: Number(r.n) })).filter((r) => r.n > 1);
}

/** The decision log of a Task (newest first, as the API lists it). */
export async function decisionsOf(
  h: Harness,
  taskId: number,
): Promise<
  Array<{
    outcome: string;
    reason: string | null;
    detail: string | null;
    attemptId: number | null;
    identity: string | null;
  }>
> {
  const res = await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=1000`);
  assert.equal(res.status, 200);
  return res.body.decisions;
}

/**
 * End the run as the runner would (its process exited) and wait until the ledger shows it ended —
 * and, when given, until the attempt reached `attemptState` (the run-end move is written after).
 */
export async function endRun(h: Harness, spec: RunSpec, attemptState?: string): Promise<void> {
  h.runner.finish(spec.runId);
  for (let i = 0; i < 400; i++) {
    const run = await h.app.ledger.getRun(spec.runId);
    const ended = run?.state === 'completed';
    const attempt =
      attemptState === undefined || spec.attemptId == null
        ? null
        : await h.app.db.kysely
            .selectFrom('attempts')
            .select('state')
            .where('id', '=', spec.attemptId)
            .executeTakeFirst();
    if (ended && (attemptState === undefined || attempt?.state === attemptState)) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`run ${spec.runId} did not end${attemptState ? ` with its attempt ${attemptState}` : ''}`);
}

/** The next poll tick: time moves one interval first (the per-PR lease lasts 90 % of one). */
export async function nextTick(h: GitHubHarness, ms = POLL_MS): Promise<void> {
  h.clock.advance(ms);
  await h.tick();
}

/** A Task on `pr`, its pull request in the fake at `head` with a red `test` check. Nothing is ticked. */
export async function taskWithRedHead(
  h: GitHubHarness,
  pr: number,
  head: string,
  output: string,
  repository = 'acme/shop',
): Promise<number> {
  const created = await h.api('POST', '/api/tasks', { repository, pullRequest: pr, branch: `agent/fix-${pr}` });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  h.fake.addPull(repository, pr, { headSha: head, headRef: `agent/fix-${pr}` });
  h.fake.addCheckRun(repository, head, {
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    outputSummary: output,
  });
  return created.body.id as number;
}

/** The agent pushed `head` with a red `test` check (distinct output: a new failure signature). */
export function pushRedHead(
  h: GitHubHarness,
  pr: number,
  head: string,
  output: string,
  repository = 'acme/shop',
): void {
  h.fake.setHead(repository, pr, head);
  h.fake.addCheckRun(repository, head, {
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    outputSummary: output,
  });
}
