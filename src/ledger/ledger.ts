// The Kysely ledger: fixloop's durable state on SQLite or PostgreSQL, one code path for both
// (the two group-commit writes of the hot path are per dialect: batch-writes.ts).
// Every exactly-once rule is a constraint or a compare-and-set here, never process memory (N1):
// events.identity (A3), attempts(task_id, coordinate) (C2), runs.attempt_id (one run per attempt),
// notices.task_id with the tasks.notice_at CAS (G1), and the head CAS on ci_head_seen_at (B1).
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import {
  NEVER_RUN_STATUSES,
  type Attempt,
  type AttemptStatus,
  type Notice,
  type UnsettledStatus,
  type Rejection,
  type RejectionSource,
  type Run,
  type RunState,
  type Task,
  type TaskState,
} from '../core/types.js';
import type { AttemptState } from '../core/attempt-state.js';
import type { Outcome } from '../core/reasons.js';
import { parseProcessMark, type ProcessMark } from '../core/stranded-run.js';
import type {
  ClaimInput,
  ClaimResult,
  Decision,
  Ledger,
  NewTask,
  NoticeInput,
  StoredEvent,
  Clock,
} from '../app/ports.js';
import { attemptOf } from './rows.js';
import type { AttemptsTable, Database, NoticesTable, RejectionsTable, RunsTable, TasksTable } from './schema.js';
import type { Db } from './db.js';
import { createBatchWrites } from './batch-writes.js';

type Q = Kysely<Database> | Transaction<Database>;

const STOP_KEY = 'stopped';

/**
 * Runs still queued or running whose agent process was marked: what the stranded-run pass reads.
 * Literal states, not parameters: a planner can use the partial index runs_unfinished (migration
 * 0006) only when it can see that the query asks for what the index holds.
 */
export function unfinishedMarkedRuns(k: Kysely<Database>) {
  return k
    .selectFrom('runs')
    .selectAll()
    .where(sql<boolean>`state in ('queued', 'running')`)
    .where('process', 'is not', null)
    .orderBy('id');
}

/**
 * Attempts in one of the unsettled statuses, untouched since `olderThan`, for the reconciliation
 * passes. The states are named as literals too, so both planners see the query fits the partial
 * index `attempts_unsettled` (migration 0007); `statuses` narrows it further.
 */
export function unsettledAttempts(k: Kysely<Database>, statuses: readonly UnsettledStatus[], olderThan: string) {
  return k
    .selectFrom('attempts')
    .selectAll()
    .where(sql<boolean>`status in ('claimed', 'dispatching')`)
    .where('status', 'in', [...statuses])
    .where('updated_at', '<=', olderThan)
    .orderBy('id');
}

/** The lifecycle of an attempt settled never to run: out of flight if it was queued (NEVER_RUN_STATUSES). */
const outOfFlight = sql<AttemptState>`case when state = 'queued' then 'acknowledged' else state end`;

export function createLedger(db: Db, clock: Clock): Ledger {
  const k = db.kysely;
  const now = () => clock.now().toISOString();

  /** Compare-and-set of an attempt's status; one that never runs leaves flight in the same write. */
  async function setStatusIn(
    q: Kysely<Database>,
    id: number,
    from: readonly AttemptStatus[],
    to: AttemptStatus,
    detail?: string,
  ): Promise<boolean> {
    const neverRuns = (NEVER_RUN_STATUSES as readonly AttemptStatus[]).includes(to);
    const r = await q
      .updateTable('attempts')
      .set({
        status: to,
        updated_at: now(),
        ...(neverRuns ? { state: outOfFlight } : {}),
        ...(detail !== undefined ? { detail } : {}),
      })
      .where('id', '=', id)
      .where('status', 'in', [...from])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** G1: the marker on the Task is claimed by compare-and-set; only the winner files the notice. */
  async function fileNoticeIn(trx: Transaction<Database>, n: NoticeInput): Promise<Notice | null> {
    const at = now();
    const won = await trx
      .updateTable('tasks')
      .set({ notice_at: at, updated_at: at })
      .where('id', '=', n.taskId)
      .where('notice_at', 'is', null)
      .executeTakeFirst();
    if (Number(won.numUpdatedRows) !== 1) return null;
    const t = await trx
      .selectFrom('tasks')
      .select(['repository', 'pr_number', 'stop_round'])
      .where('id', '=', n.taskId)
      .executeTakeFirstOrThrow();
    // Counted here, in the transaction that files the notice: a claim committed meanwhile is in it.
    const used = await countAttemptsQ(trx, n.taskId);
    const row = await trx
      .insertInto('notices')
      .values({
        task_id: n.taskId,
        round: t.stop_round,
        reason: n.reason,
        head_sha: n.headSha,
        attempts_used: used,
        message: n.message(used),
        created_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return noticeOf({ ...row, ...t });
  }
  const writes = createBatchWrites(db);

  const taskOf = (r: Selectable<TasksTable>): Task => ({
    id: r.id,
    work: r.work,
    repository: r.repository,
    pullRequest: r.pr_number,
    branch: r.branch,
    state: r.state as Task['state'],
    prState: r.pr_state as Task['prState'],
    branchState: r.branch_state as Task['branchState'],
    isFork: r.is_fork === 1,
    ciHeadSha: r.ci_head_sha,
    ciHeadSeenAt: r.ci_head_seen_at,
    ciState: r.ci_state as Task['ciState'],
    noticeAt: r.notice_at,
    resumeRef: r.resume_ref,
    createdAt: r.created_at,
    polledAt: r.polled_at,
    stopRound: r.stop_round,
    extraAttempts: r.extra_attempts,
    approveOnePending: r.approve_one_pending === 1,
    parkedAt: r.parked_at,
    handoffAt: r.handoff_at,
    stateCommentId: r.state_comment_id,
    adopted: r.adopted === 1,
    gate: r.gate ? (JSON.parse(r.gate) as Task['gate']) : null,
  });
  const runOf = (r: Selectable<RunsTable>): Run => ({
    id: r.id,
    taskId: r.task_id,
    action: r.action as Run['action'],
    autoResume: r.auto_resume === 1,
    state: r.state as RunState,
    attemptId: r.attempt_id,
    createdAt: r.created_at,
  });
  const rejectionOf = (r: Selectable<RejectionsTable>): Rejection => ({
    id: r.id,
    taskId: r.task_id,
    source: r.source as RejectionSource,
    headSha: r.head_sha,
    checkName: r.check_name,
    body: r.body,
    createdAt: r.created_at,
  });
  const noticeOf = (r: Selectable<NoticesTable> & { repository: string; pr_number: number }): Notice => ({
    id: r.id,
    taskId: r.task_id,
    reason: r.reason as Notice['reason'],
    headSha: r.head_sha,
    attemptsUsed: r.attempts_used,
    repository: r.repository,
    pullRequest: r.pr_number,
    message: r.message,
    createdAt: r.created_at,
  });

  async function countAttemptsQ(q: Q, taskId: number): Promise<number> {
    const r = await q
      .selectFrom('attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('task_id', '=', taskId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async function getTaskQ(q: Q, id: number): Promise<Task | null> {
    const r = await q.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? taskOf(r) : null;
  }

  const ledger: Ledger = {
    now,

    async storeDeliveries(batch, alsoRecord) {
      if (batch.length === 0 && alsoRecord.length === 0) return [];
      return writes.storeDeliveries(batch, alsoRecord, now());
    },

    async recordDecisions(rows, evaluated = []) {
      if (rows.length === 0 && evaluated.length === 0) return;
      await writes.recordDecisions(rows, evaluated, now());
    },

    async listDecisions({ taskId, deliveryId, limit, beforeId }) {
      let q = k.selectFrom('decisions').selectAll().orderBy('id', 'desc').limit(limit);
      if (taskId !== undefined) q = q.where('task_id', '=', taskId);
      if (deliveryId !== undefined) q = q.where('delivery_id', '=', deliveryId);
      if (beforeId !== undefined) q = q.where('id', '<', beforeId);
      const rows = await q.execute();
      return rows.map((r): Decision => ({
        id: r.id,
        at: r.at,
        deliveryId: r.delivery_id,
        eventName: r.event_name,
        identity: r.identity,
        eventId: r.event_id,
        taskId: r.task_id,
        attemptId: r.attempt_id,
        outcome: r.outcome as Outcome,
        reason: r.reason,
        detail: r.detail,
      }));
    },

    async pendingEvents(limit, afterId) {
      const rows = await k
        .selectFrom('pending_events')
        .innerJoin('events', 'events.id', 'pending_events.event_id')
        .select([
          'events.id',
          'events.identity',
          'events.kind',
          'events.event_name',
          'events.delivery_id',
          'events.payload',
        ])
        .where('pending_events.event_id', '>', afterId)
        .orderBy('pending_events.event_id')
        .limit(limit)
        .execute();
      return rows.map((r): StoredEvent => ({
        id: r.id,
        identity: r.identity,
        kind: r.kind,
        eventName: r.event_name,
        deliveryId: r.delivery_id,
        payload: r.payload,
      }));
    },

    async createTask(t) {
      const at = now();
      return k.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('tasks')
          .selectAll()
          .where('repository', '=', t.repository)
          .where('pr_number', '=', t.pullRequest)
          .executeTakeFirst();
        if (existing) return { kind: 'exists' as const, task: taskOf(existing) };
        const row = await trx
          .insertInto('tasks')
          .values({
            work: t.work,
            repository: t.repository,
            pr_number: t.pullRequest,
            branch: t.branch,
            state: 'open',
            pr_state: 'open',
            branch_state: 'present',
            is_fork: 0,
            ci_head_sha: null,
            ci_head_seen_at: null,
            ci_state: 'unknown',
            notice_at: null,
            resume_ref: t.resumeRef,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        // The run that opened the pull request is the Task's first run.
        const run = await trx
          .insertInto('runs')
          .values({
            task_id: row.id,
            action: 'start',
            auto_resume: 0,
            state: 'completed',
            attempt_id: null,
            token_hash: null,
            exit_code: null,
            log: '',
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { task: taskOf(row), run: runOf(run) };
      });
    },

    getTask: (id) => getTaskQ(k, id),

    async findTaskByPullRequest(repository, numbers) {
      if (numbers.length === 0) return null;
      const r = await k
        .selectFrom('tasks')
        .selectAll()
        .where('repository', '=', repository)
        .where('pr_number', 'in', numbers)
        .orderBy('id')
        .executeTakeFirst();
      return r ? taskOf(r) : null;
    },

    async findTasksByPullRequests(keys) {
      const byRepository = new Map<string, number[]>();
      for (const { repository, number } of keys)
        byRepository.set(repository, [...(byRepository.get(repository) ?? []), number]);
      if (byRepository.size === 0) return [];
      const rows = await k
        .selectFrom('tasks')
        .selectAll()
        .where((eb) =>
          eb.or(
            [...byRepository].map(([repository, numbers]) =>
              eb.and([eb('repository', '=', repository), eb('pr_number', 'in', numbers)]),
            ),
          ),
        )
        .orderBy('id')
        .execute();
      return rows.map(taskOf);
    },

    async findTaskByBranch(repository, branch) {
      const r = await k
        .selectFrom('tasks')
        .selectAll()
        .where('repository', '=', repository)
        .where('branch', '=', branch)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return r ? taskOf(r) : null;
    },

    async listTasks({ state }) {
      let q = k.selectFrom('tasks').selectAll().orderBy('id');
      if (state) q = q.where('state', '=', state);
      return (await q.execute()).map(taskOf);
    },

    async setTaskState(id, state: TaskState) {
      await k.updateTable('tasks').set({ state, updated_at: now() }).where('id', '=', id).execute();
      return getTaskQ(k, id);
    },

    async updatePullRequest(id, p) {
      await k
        .updateTable('tasks')
        .set({
          pr_state: p.prState,
          is_fork: p.isFork ? 1 : 0,
          ...(p.branchState ? { branch_state: p.branchState } : {}),
          updated_at: now(),
        })
        .where('id', '=', id)
        .execute();
    },

    async advanceHead(id, sha, seenAt, ciState) {
      // B1: the head only moves forward in time, and only to another commit: a writer that lost
      // the race, or that reports the head already held, changes nothing (its ciState included).
      let q = k
        .updateTable('tasks')
        .set({ ci_head_sha: sha, ci_head_seen_at: seenAt, ci_state: ciState, updated_at: now() })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('ci_head_sha', 'is', null), eb('ci_head_sha', '!=', sha)]));
      q =
        seenAt === null
          ? q.where('ci_head_sha', 'is', null)
          : q.where((eb) => eb.or([eb('ci_head_seen_at', 'is', null), eb('ci_head_seen_at', '<', seenAt)]));
      const r = await q.executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async markRed(id, sha) {
      await k
        .updateTable('tasks')
        .set({ ci_state: 'red' })
        .where('id', '=', id)
        .where('ci_head_sha', '=', sha)
        .where('ci_state', '!=', 'red')
        .execute();
    },

    async latestRun(taskId) {
      const r = await k
        .selectFrom('runs')
        .selectAll()
        .where('task_id', '=', taskId)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return r ? runOf(r) : null;
    },

    async listRuns(taskId) {
      return (await k.selectFrom('runs').selectAll().where('task_id', '=', taskId).orderBy('id').execute()).map(runOf);
    },

    async getRun(id) {
      const r = await k.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? { ...runOf(r), tokenHash: r.token_hash } : null;
    },

    async setRunState(id, from, to, extra) {
      const r = await k
        .updateTable('runs')
        .set({
          state: to,
          updated_at: now(),
          ...(extra?.exitCode !== undefined ? { exit_code: extra.exitCode } : {}),
        })
        .where('id', '=', id)
        .where('state', 'in', [...from])
        .returningAll()
        .executeTakeFirst();
      return r ? runOf(r) : null;
    },

    async setRunProcess(id, mark) {
      await k
        .updateTable('runs')
        .set({ process: JSON.stringify(mark), updated_at: now() })
        .where('id', '=', id)
        .where('state', 'in', ['queued', 'running'])
        .execute();
    },

    async markFoundAgent(runId, attemptId, mark, olderThan) {
      const r = await k
        .updateTable('runs')
        .set({ process: JSON.stringify(mark), updated_at: now() })
        .where('id', '=', runId)
        .where('process', 'is', null)
        .where('state', 'in', ['queued', 'running'])
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('attempts')
              .select('id')
              .where('id', '=', attemptId)
              .where('run_id', '=', runId)
              .where('status', '=', 'dispatching')
              .where('updated_at', '<=', olderThan),
          ),
        )
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async runProcess(id) {
      const r = await k.selectFrom('runs').select('process').where('id', '=', id).executeTakeFirst();
      return parseProcessMark(r?.process ?? null);
    },

    async unfinishedRunsOn(host) {
      const rows = await unfinishedMarkedRuns(k).execute();
      const out: Array<{ run: Run; process: ProcessMark }> = [];
      for (const r of rows) {
        const process = parseProcessMark(r.process);
        if (process?.host === host) out.push({ run: runOf(r), process });
      }
      return out;
    },

    async appendRunLog(id, text, maxChars) {
      // Bounded in the database too: once the cap is reached the rest is dropped.
      const r = await k.selectFrom('runs').select('log').where('id', '=', id).executeTakeFirst();
      if (!r || r.log.length >= maxChars) return;
      const room = maxChars - r.log.length;
      await k
        .updateTable('runs')
        .set({ log: r.log + text.slice(0, room) })
        .where('id', '=', id)
        .execute();
    },

    async getRunLog(id) {
      const r = await k.selectFrom('runs').select('log').where('id', '=', id).executeTakeFirst();
      return r ? r.log : null;
    },

    countAttempts: (taskId) => countAttemptsQ(k, taskId),

    async listAttempts(taskId) {
      return (await k.selectFrom('attempts').selectAll().where('task_id', '=', taskId).orderBy('id').execute()).map(
        attemptOf,
      );
    },

    async lastAttempt(taskId, source) {
      const r = await k
        .selectFrom('attempts')
        .selectAll()
        .where('task_id', '=', taskId)
        .where('source', '=', source)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return r ? attemptOf(r) : null;
    },

    async claimAttempt(c: ClaimInput): Promise<ClaimResult> {
      const at = now();
      return k.transaction().execute(async (trx) => {
        // C2: the unique (task_id, coordinate) index is the claim; a loser inserts nothing.
        const row = await trx
          .insertInto('attempts')
          .values({
            task_id: c.taskId,
            coordinate: c.coordinate,
            source: c.source,
            head_sha: c.headSha,
            fingerprint: c.fingerprint,
            status: 'claimed',
            rejection_id: null,
            run_id: null,
            detail: null,
            created_at: at,
            updated_at: at,
          })
          .onConflict((oc) => oc.columns(['task_id', 'coordinate']).doNothing())
          .returningAll()
          .executeTakeFirst();
        if (!row) return { kind: 'taken' as const };
        // H2: the failing output is a durable rejection before anything is dispatched.
        let rejectionId: number;
        if ('existingId' in c.rejection) rejectionId = c.rejection.existingId;
        else {
          const rej = await trx
            .insertInto('rejections')
            .values({
              task_id: c.taskId,
              source: c.source,
              head_sha: c.headSha,
              check_name: c.rejection.checkName,
              body: c.rejection.body,
              event_id: c.rejection.eventId,
              created_at: at,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          rejectionId = rej.id;
        }
        await trx.updateTable('attempts').set({ rejection_id: rejectionId }).where('id', '=', row.id).execute();
        // C3: re-read the count inside the claim's transaction.
        const attemptsCounted = await countAttemptsQ(trx, c.taskId);
        return { kind: 'claimed' as const, attempt: attemptOf({ ...row, rejection_id: rejectionId }), attemptsCounted };
      });
    },

    async beginDispatch(attemptId, from, tokenHash) {
      const at = now();
      return k.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable('attempts')
          .set({ status: 'dispatching', updated_at: at })
          .where('id', '=', attemptId)
          .where('status', '=', from)
          .returningAll()
          .executeTakeFirst();
        if (!moved) return null;
        // H1: a machine's resume is stamped as one; runs.attempt_id is unique, so never two runs.
        const run = await trx
          .insertInto('runs')
          .values({
            task_id: moved.task_id,
            action: 'resume',
            auto_resume: 1,
            state: 'queued',
            attempt_id: attemptId,
            token_hash: tokenHash,
            exit_code: null,
            log: '',
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx.updateTable('attempts').set({ run_id: run.id }).where('id', '=', attemptId).execute();
        return { attempt: attemptOf({ ...moved, run_id: run.id }), run: runOf(run) };
      });
    },

    async setAttemptStatus(id, from, to, detail) {
      return setStatusIn(k, id, from, to, detail);
    },

    async settleOverBudget(id, detail, notice) {
      return k.transaction().execute(async (trx) => {
        if (!(await setStatusIn(trx, id, ['claimed'], 'over_budget', detail))) return { settled: false, notice: null };
        return { settled: true, notice: notice ? await fileNoticeIn(trx, notice) : null };
      });
    },

    async renewDispatch(id) {
      const r = await k
        .updateTable('attempts')
        .set({ updated_at: now() })
        .where('id', '=', id)
        .where('status', '=', 'dispatching')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async expireDispatch(id, olderThan, detail) {
      // The lease is the row's updated_at: taken only if nobody renewed it since it was read.
      const r = await k
        .updateTable('attempts')
        .set({ status: 'dispatch_unknown', state: outOfFlight, updated_at: now(), detail })
        .where('id', '=', id)
        .where('status', '=', 'dispatching')
        .where('updated_at', '<=', olderThan)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async attemptsWithStatus(statuses, olderThan) {
      const rows = await unsettledAttempts(k, statuses, olderThan).execute();
      return rows.map(attemptOf);
    },

    async getRejection(id) {
      const r = await k.selectFrom('rejections').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? rejectionOf(r) : null;
    },

    async createRejection(r) {
      const row = await k
        .insertInto('rejections')
        .values({
          task_id: r.taskId,
          source: r.source,
          head_sha: r.headSha,
          check_name: r.checkName,
          body: r.body,
          event_id: r.eventId,
          created_at: now(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return rejectionOf(row);
    },

    async listRejections(taskId) {
      return (await k.selectFrom('rejections').selectAll().where('task_id', '=', taskId).orderBy('id').execute()).map(
        rejectionOf,
      );
    },

    async fileNotice(n: NoticeInput) {
      return k.transaction().execute((trx) => fileNoticeIn(trx, n));
    },

    async getNotice(taskId) {
      const r = await k
        .selectFrom('notices')
        .innerJoin('tasks', 'tasks.id', 'notices.task_id')
        .selectAll('notices')
        .select(['tasks.repository', 'tasks.pr_number'])
        .where('notices.task_id', '=', taskId)
        .orderBy('notices.id', 'desc')
        .executeTakeFirst();
      return r ? noticeOf(r) : null;
    },

    async listNotices() {
      const rows = await k
        .selectFrom('notices')
        .innerJoin('tasks', 'tasks.id', 'notices.task_id')
        .selectAll('notices')
        .select(['tasks.repository', 'tasks.pr_number'])
        .orderBy('notices.id', 'desc')
        .execute();
      return rows.map(noticeOf);
    },

    async leasePoll(taskId, until) {
      // E1: one replica polls a given pull request per tick — a lease taken by compare-and-set.
      const at = now();
      const r = await k
        .updateTable('tasks')
        .set({ poll_lease_until: until })
        .where('id', '=', taskId)
        .where((eb) => eb.or([eb('poll_lease_until', 'is', null), eb('poll_lease_until', '<=', at)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async markPolled(taskId) {
      await k.updateTable('tasks').set({ polled_at: now() }).where('id', '=', taskId).execute();
    },

    async setCiStateForHead(taskId, sha, state) {
      // B2: only the poll writes passing, and only for the commit that is still the head.
      await k
        .updateTable('tasks')
        .set({ ci_state: state, updated_at: now() })
        .where('id', '=', taskId)
        .where('ci_head_sha', '=', sha)
        .where('ci_state', '!=', state)
        .execute();
    },

    async grantApproveOne(taskId, round) {
      // K5: a person's approve-one re-opens the loop for exactly one more attempt, once per stop.
      const r = await k
        .updateTable('tasks')
        .set((eb) => ({
          notice_at: null,
          handoff_at: null,
          stop_round: eb('stop_round', '+', 1),
          extra_attempts: eb('extra_attempts', '+', 1),
          approve_one_pending: 1,
          updated_at: now(),
        }))
        .where('id', '=', taskId)
        .where('stop_round', '=', round)
        .where('notice_at', 'is not', null)
        .where('parked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async consumeApproveOne(taskId) {
      await k.updateTable('tasks').set({ approve_one_pending: 0 }).where('id', '=', taskId).execute();
    },

    async park(taskId, round) {
      const r = await k
        .updateTable('tasks')
        .set({ parked_at: now(), updated_at: now() })
        .where('id', '=', taskId)
        .where('stop_round', '=', round)
        .where('notice_at', 'is not', null)
        .where('parked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async setHandoff(taskId, round, commentId) {
      await k
        .updateTable('tasks')
        .set({ handoff_at: now(), state_comment_id: commentId })
        .where('id', '=', taskId)
        .where('stop_round', '=', round)
        .execute();
    },

    async setStateCommentId(taskId, commentId) {
      await k.updateTable('tasks').set({ state_comment_id: commentId }).where('id', '=', taskId).execute();
    },

    async setGate(taskId, gate) {
      await k
        .updateTable('tasks')
        .set({ gate: JSON.stringify(gate) })
        .where('id', '=', taskId)
        .execute();
    },

    async markAdopted(taskId) {
      await k.updateTable('tasks').set({ adopted: 1 }).where('id', '=', taskId).execute();
    },

    async readStopFlag() {
      const r = await k.selectFrom('settings').select('value').where('key', '=', STOP_KEY).executeTakeFirst();
      return r?.value === 'true';
    },

    async writeStopFlag(stopped) {
      await k
        .insertInto('settings')
        .values({ key: STOP_KEY, value: String(stopped) })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(stopped) }))
        .execute();
    },
  };
  return ledger;
}

/** A trivial query that proves the database answers (readiness). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db.kysely);
}
