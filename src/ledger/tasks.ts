// Tasks on Kysely: one per pull request (A6), its CI head moved only forward by compare-and-set
// (B1), its CI state (B2), and what the poll and the hand-off write on it (E1, K5, K8).
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { TaskStore } from '../app/ledger-port.js';
import type { Database } from './schema.js';
import { runOf, taskOf } from './rows.js';

/** The Task is stopped in this round (its notice filed) and not parked: what a person's answer acts on (K5). */
function stoppedIn(eb: ExpressionBuilder<Database, 'tasks'>, taskId: number, round: number) {
  return eb.and([
    eb('id', '=', taskId),
    eb('stop_round', '=', round),
    eb('notice_at', 'is not', null),
    eb('parked_at', 'is', null),
  ]);
}

export function createTaskStore(k: Kysely<Database>, now: () => string): TaskStore {
  async function getTask(id: number) {
    const r = await k.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? taskOf(r) : null;
  }

  return {
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

    getTask,

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

    async findTaskWithClaim(repository, numbers, coordinate) {
      if (numbers.length === 0) return null;
      const r = await k
        .selectFrom('tasks')
        .selectAll('tasks')
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom('attempts')
                .select('attempts.id')
                .whereRef('attempts.task_id', '=', 'tasks.id')
                .where('attempts.coordinate', '=', coordinate),
            )
            .as('claimed'),
        )
        .where('tasks.repository', '=', repository)
        .where('tasks.pr_number', 'in', numbers)
        .orderBy('tasks.id')
        .executeTakeFirst();
      // PostgreSQL answers exists with a boolean, SQLite with 0 or 1.
      return r ? { task: taskOf(r), claimed: Boolean(r.claimed) } : null;
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

    async listTasks({ state, repository, after, limit }) {
      let q = k.selectFrom('tasks').selectAll().orderBy('id');
      if (state) q = q.where('state', '=', state);
      if (repository) q = q.where('repository', '=', repository.toLowerCase());
      if (after !== undefined) q = q.where('id', '>', after);
      if (limit !== undefined) q = q.limit(limit);
      return (await q.execute()).map(taskOf);
    },

    async setTaskState(id, state) {
      await k.updateTable('tasks').set({ state, updated_at: now() }).where('id', '=', id).execute();
      return getTask(id);
    },

    async updatePullRequest(id, p) {
      await k
        .updateTable('tasks')
        .set({
          pr_state: p.prState,
          is_fork: p.isFork ? 1 : 0,
          ...(p.branchState ? { branch_state: p.branchState } : {}),
          ...(p.baseRef ? { base_ref: p.baseRef } : {}),
          ...(p.title ? { pr_title: p.title } : {}),
          ...(p.author ? { pr_author: p.author } : {}),
          updated_at: now(),
        })
        .where('id', '=', id)
        .execute();
    },

    async advanceHead(id, sha, seenAt, ciState, move = { by: 'clock' }) {
      // B1: the head moves only to another commit, and only forward: by the clock (strictly later,
      // or with `clock_or_tie` not earlier), or off the very commit a push replaced. A writer that
      // lost the race, or that reports the head already held, changes nothing (its ciState included).
      let q = k
        .updateTable('tasks')
        .set((eb) => ({
          ci_head_sha: sha,
          // A push moves the head whatever the clock says, but the head's time never moves back.
          ci_head_seen_at:
            move.by === 'replaces'
              ? seenAt === null
                ? eb.ref('ci_head_seen_at')
                : eb
                    .case()
                    .when(eb.or([eb('ci_head_seen_at', 'is', null), eb('ci_head_seen_at', '<', seenAt)]))
                    .then(seenAt)
                    .else(eb.ref('ci_head_seen_at'))
                    .end()
              : seenAt,
          ci_state: ciState,
          updated_at: now(),
        }))
        .where('id', '=', id)
        .where((eb) => eb.or([eb('ci_head_sha', 'is', null), eb('ci_head_sha', '!=', sha)]));
      if (move.by === 'replaces') q = q.where('ci_head_sha', '=', move.before);
      else if (seenAt === null) q = q.where('ci_head_sha', 'is', null);
      else {
        const op = move.by === 'clock' ? '<' : '<=';
        q = q.where((eb) => eb.or([eb('ci_head_seen_at', 'is', null), eb('ci_head_seen_at', op, seenAt)]));
      }
      const r = await q.executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async claimRequeue(taskId, headSha) {
      // Issue 36: one re-queue per head, across replicas: the compare-and-set on the Task decides.
      const r = await k
        .updateTable('tasks')
        .set({ requeued_head: headSha })
        .where('id', '=', taskId)
        .where((eb) => eb.or([eb('requeued_head', 'is', null), eb('requeued_head', '!=', headSha)]))
        .executeTakeFirst();
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
      // V1: a move to passing keeps when and for which head, for Results (migration 0023).
      const at = now();
      await k
        .updateTable('tasks')
        .set({ ci_state: state, updated_at: at, ...(state === 'passing' ? { green_at: at, green_sha: sha } : {}) })
        .where('id', '=', taskId)
        .where('ci_head_sha', '=', sha)
        .where('ci_state', '!=', state)
        .execute();
    },

    async grantApproveOne(taskId, round, configuredCap) {
      // K5: a person's approve-one re-opens the loop for exactly one more attempt, once per stop.
      // V4: and only while the Task's grants (`extra_attempts`) are under its cap, in the same
      // statement, so two replicas granting at once can never pass it (core/grant-cap.ts).
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
        .where((eb) =>
          eb.and([
            stoppedIn(eb, taskId, round),
            eb('extra_attempts', '<', eb.fn.coalesce('max_grants', eb.val(configuredCap))),
          ]),
        )
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) return { kind: 'granted' as const };
      const t = await k
        .selectFrom('tasks')
        .select(['extra_attempts', 'max_grants'])
        .where('id', '=', taskId)
        .executeTakeFirst();
      if (t && t.extra_attempts >= (t.max_grants ?? configuredCap))
        return { kind: 'capped' as const, used: t.extra_attempts, ownCap: t.max_grants };
      return { kind: 'changed' as const };
    },

    async setMaxGrants(taskId, maxGrants) {
      // V4: a person's own cap for this Task; the one before is read in the same transaction for the record.
      return k.transaction().execute(async (trx) => {
        const t = await trx.selectFrom('tasks').select('max_grants').where('id', '=', taskId).executeTakeFirst();
        if (!t) return null;
        await trx
          .updateTable('tasks')
          .set({ max_grants: maxGrants, updated_at: now() })
          .where('id', '=', taskId)
          .execute();
        return { before: t.max_grants };
      });
    },

    async reopenStop(taskId, round) {
      // T3: the stop is answered, a new round opens; unlike approve-one no attempt is granted past the budget.
      const r = await k
        .updateTable('tasks')
        .set((eb) => ({ notice_at: null, handoff_at: null, stop_round: eb('stop_round', '+', 1), updated_at: now() }))
        .where((eb) => stoppedIn(eb, taskId, round))
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
        .where((eb) => stoppedIn(eb, taskId, round))
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

    async setLoopOff(taskId, off) {
      const r = await k
        .updateTable('tasks')
        .set({ loop_off: off ? 1 : 0, updated_at: now() })
        .where('id', '=', taskId)
        .where('loop_off', '=', off ? 0 : 1)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async setSkipLabel(taskId, on) {
      const r = await k
        .updateTable('tasks')
        .set({ skip_label: on ? 1 : 0, updated_at: now() })
        .where('id', '=', taskId)
        .where('skip_label', '=', on ? 0 : 1)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async setCommitStatus(taskId, written) {
      // A mirror of what GitHub shows, not a change of the Task: updated_at stays.
      await k.updateTable('tasks').set({ commit_status: written }).where('id', '=', taskId).execute();
    },

    async setParked(taskId, parked) {
      const at = now();
      const r = await k
        .updateTable('tasks')
        .set({ parked_at: parked ? at : null, updated_at: at })
        .where('id', '=', taskId)
        .where('parked_at', parked ? 'is' : 'is not', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async markAdopted(taskId) {
      await k.updateTable('tasks').set({ adopted: 1 }).where('id', '=', taskId).execute();
    },
  };
}
