// The dashboard's reads (SPEC M4): a page of the board, a page of the Inbox, and the newest decision
// id the live stream watches. Every read is bounded: a keyset page of Tasks by id, then the page's
// counts, spend and last failure by `task_id in (…)` over indexed columns, so a page costs the same
// with 10,000 Tasks as with ten and never holds the event loop while webhooks wait.
import { sql, type Kysely } from 'kysely';
import type { BoardRow, BoardStore, BoardSummary, InboxRow } from '../app/ledger-port.js';
import type { LoopState } from '../core/loop-state.js';
import type { CiState, TaskState } from '../core/types.js';
import type { Database } from './schema.js';
import { CI_RESULT_KINDS } from './migrations.js';

/** The loop's state of the Task `t` in words the board filters on; the order is the precedence. */
const LOOP_STATE = sql<LoopState>`case
  when t.loop_off = 1 or t.skip_label = 1 then 'off'
  when t.parked_at is not null then 'parked'
  when t.notice_at is not null then 'needs_person'
  when exists (select 1 from runs r where r.task_id = t.id and r.state in ('queued', 'running')) then 'agent_running'
  when exists (select 1 from attempts a inner join runs r on r.id = a.run_id where a.task_id = t.id
    and a.state in ('queued', 'running') and r.interrupted_at is not null and r.state not in ('queued', 'running'))
    then 'interrupted'
  when exists (select 1 from attempts a where a.task_id = t.id and a.state = 'awaiting_progress') then 'awaiting_progress'
  else 'idle' end`;

/** Issue 33: the Task waits for a person (a stop not parked, the loop not off): the board lists it first. */
const NEEDS_YOU = sql<number>`case when t.notice_at is not null and t.parked_at is null and t.loop_off = 0
  and t.skip_label = 0 then 0 else 1 end`;

/** Triage's answers that hold a red back from the agent (the board says why: "failing on main too"). */
const TRIAGE_HOLDS = ['red_on_base', 'rerun_requested', 'awaiting_matrix'] as const;

// The line of a failure that says what failed: pure, shared with the Task page (core/failure-line.ts).
export { failureLine } from '../core/failure-line.js';
import { failureLine, redOfDelivery } from '../core/failure-line.js';

export function createBoardStore(k: Kysely<Database>): BoardStore {
  return {
    async boardPage(f) {
      let q = k
        .selectFrom('tasks as t')
        .select([
          't.id',
          't.repository',
          't.pr_number',
          't.branch',
          't.state',
          't.ci_state',
          't.extra_attempts',
          't.max_grants',
          't.created_at',
          't.updated_at',
          't.work',
          't.pr_title',
          't.pr_author',
        ])
        .select(LOOP_STATE.as('loop_state'))
        .limit(f.limit + 1);
      // Issue 33: the board's order puts what needs a person first, then the latest activity.
      q = f.attention
        ? q.orderBy(NEEDS_YOU).orderBy('t.updated_at', 'desc').orderBy('t.id', 'desc').offset(f.attention.offset)
        : q.orderBy('t.id', 'desc');
      if (f.before !== undefined) q = q.where('t.id', '<', f.before);
      if (f.taskId !== undefined) q = q.where('t.id', '=', f.taskId);
      if (f.state) q = q.where('t.state', '=', f.state);
      if (f.repository) q = q.where('t.repository', '=', f.repository.toLowerCase());
      if (f.loop) q = q.where(LOOP_STATE, '=', f.loop);
      if (f.search) {
        const term = f.search.trim().toLowerCase();
        const number = /^#?(\d{1,9})$/.exec(term);
        q = number
          ? q.where('t.pr_number', '=', Number(number[1]))
          : q.where((eb) =>
              eb.or([
                eb('t.repository', 'like', `%${escapeLike(term)}%`),
                eb('t.branch', 'like', `%${escapeLike(term)}%`),
              ]),
            );
      }
      const rows = await q.execute();
      const page = rows.slice(0, f.limit);
      const ids = page.map((r) => r.id);
      if (ids.length === 0) return { rows: [], nextBefore: null };
      const [attempts, spends, failures, holds] = await Promise.all([
        k
          .selectFrom('attempts')
          .select(['task_id', (eb) => eb.fn.countAll<number>().as('n')])
          .where('task_id', 'in', ids)
          .groupBy('task_id')
          .execute(),
        k
          .selectFrom('spends')
          .select(['task_id', (eb) => eb.fn.sum<number>(eb('model', '+', eb.ref('sandbox'))).as('total')])
          .where('task_id', 'in', ids)
          .groupBy('task_id')
          .execute(),
        k
          .selectFrom('rejections')
          .select(['task_id', 'check_name', 'head_sha', sql<string>`substr(body, 1, 400)`.as('head')])
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('rejections')
              .select((e) => e.fn.max('id').as('id'))
              .where('task_id', 'in', ids)
              .groupBy('task_id'),
          )
          .execute(),
        // T1, T2, T6: the newest triage hold, unless an attempt was claimed after it.
        k
          .selectFrom('decisions')
          .select(['task_id', 'reason', 'detail'])
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('decisions')
              .select((e) => e.fn.max('id').as('id'))
              .where('task_id', 'in', ids)
              .where((e) => e.or([e('reason', 'in', [...TRIAGE_HOLDS]), e('outcome', '=', 'claimed')]))
              .groupBy('task_id'),
          )
          .execute(),
      ]);
      const held = new Map(
        holds
          .filter((d) => d.task_id !== null && (TRIAGE_HOLDS as readonly (string | null)[]).includes(d.reason))
          .map((d) => [d.task_id!, d.detail ?? d.reason!]),
      );
      const count = new Map(attempts.map((a) => [a.task_id, Number(a.n)]));
      const spent = new Map(spends.map((s) => [s.task_id, Number(s.total)]));
      const failure = new Map(
        failures.map((r) => [r.task_id, [r.check_name, failureLine(r.head)].filter((x) => x).join(': ')]),
      );
      // Issue 33: a stopped Task's failure is the red that stopped it, often never stored as a failure
      // of its own: its delivery says what failed (a few rows per page, by indexed columns).
      const stopped = page.filter((r) => r.loop_state === 'needs_person').map((r) => r.id);
      if (stopped.length > 0) {
        const notices = await k
          .selectFrom('notices as n')
          .innerJoin('tasks as t', 't.id', 'n.task_id')
          .select(['n.task_id', 'n.head_sha', 't.repository'])
          .where('n.task_id', 'in', stopped)
          .whereRef('n.round', '=', 't.stop_round')
          .execute();
        const storedHead = new Map(failures.map((r) => [r.task_id, r.head_sha]));
        const missing = notices.filter((n) => n.head_sha !== null && storedHead.get(n.task_id) !== n.head_sha);
        if (missing.length > 0) {
          const events = await k
            .selectFrom('events')
            .select(['id', 'repository', 'sha', 'payload'])
            .where('kind', 'in', CI_RESULT_KINDS)
            .where('verdict', '=', 'red')
            .where('sha', 'in', [...new Set(missing.map((n) => n.head_sha!))])
            .orderBy('id', 'desc')
            .execute();
          for (const n of missing) {
            const e = events.find((x) => x.sha === n.head_sha && x.repository === n.repository);
            const red = e ? redOfDelivery(e.payload) : null;
            if (red) failure.set(n.task_id, [red.name, failureLine(red.text)].filter((x) => x).join(': '));
          }
        }
      }
      return {
        rows: page.map((r): BoardRow => ({
          id: r.id,
          repository: r.repository,
          pullRequest: r.pr_number,
          branch: r.branch,
          state: r.state as TaskState,
          ciState: r.ci_state as CiState,
          attemptsUsed: count.get(r.id) ?? 0,
          extraAttempts: r.extra_attempts,
          maxGrants: r.max_grants ?? null,
          spend: spent.get(r.id) ?? 0,
          loopState: r.loop_state,
          lastFailure: failure.get(r.id) || null,
          triage: held.get(r.id) ?? null,
          createdAt: r.created_at,
          updatedAt: r.updated_at,
          work: r.work,
          prTitle: r.pr_title ?? null,
          prAuthor: r.pr_author ?? null,
        })),
        nextBefore: rows.length > f.limit ? page.at(-1)!.id : null,
      };
    },

    async inboxPage(f) {
      // What needs a person: the notice of each Task's current stop (a granted attempt opens a new
      // round, and the old notice is answered), oldest first.
      let q = k
        .selectFrom('notices as n')
        .innerJoin('tasks as t', 't.id', 'n.task_id')
        .select([
          'n.id',
          'n.task_id',
          'n.reason',
          'n.head_sha',
          'n.attempts_used',
          'n.message',
          'n.created_at',
          't.repository',
          't.pr_number',
          't.parked_at',
        ])
        .where('t.notice_at', 'is not', null)
        .whereRef('n.round', '=', 't.stop_round')
        .orderBy('n.id', 'asc')
        .limit(f.limit + 1);
      if (f.after !== undefined) q = q.where('n.id', '>', f.after);
      const rows = await q.execute();
      const page = rows.slice(0, f.limit);
      return {
        rows: page.map((r): InboxRow => ({
          id: r.id,
          taskId: r.task_id,
          repository: r.repository,
          pullRequest: r.pr_number,
          reason: r.reason as InboxRow['reason'],
          headSha: r.head_sha,
          attemptsUsed: r.attempts_used,
          message: r.message,
          createdAt: r.created_at,
          parked: r.parked_at !== null,
        })),
        nextAfter: rows.length > f.limit ? page.at(-1)!.id : null,
      };
    },

    async latestDecisionId() {
      const r = await k
        .selectFrom('decisions')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(r?.id ?? 0);
    },

    boardSummary: (f) => summary(k, f),

    async stopSetBy() {
      const r = await k
        .selectFrom('decisions')
        .select(['at', 'detail'])
        .where('outcome', '=', 'acted')
        .where('reason', '=', 'stop_all')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return r ? { at: String(r.at), detail: r.detail } : null;
    },

    async runFacts(taskId) {
      const [runs, spends] = await Promise.all([
        k
          .selectFrom('runs')
          .select(['id', 'updated_at', 'exit_code'])
          .where('task_id', '=', taskId)
          .orderBy('id')
          .execute(),
        k
          .selectFrom('spends')
          .select(['run_id', (eb) => eb.fn.sum<number>(eb('model', '+', eb.ref('sandbox'))).as('total')])
          .where('task_id', '=', taskId)
          .where('run_id', 'is not', null)
          .groupBy('run_id')
          .execute(),
      ]);
      const spent = new Map(spends.map((s) => [s.run_id, Number(s.total)]));
      return runs.map((r) => ({
        runId: r.id,
        updatedAt: r.updated_at,
        exitCode: r.exit_code,
        spend: spent.get(r.id) ?? 0,
      }));
    },

    async liveMark() {
      const [d, t, r] = await Promise.all([
        k
          .selectFrom('decisions')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst(),
        k
          .selectFrom('tasks')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst(),
        k
          .selectFrom('runs')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst(),
      ]);
      // Three indexed max(id)s: a new decision, a Task registered (no decision of its own), a run started.
      return `${d?.id ?? 0}:${t?.id ?? 0}:${r?.id ?? 0}`;
    },

    async taskIdsDecidedAfter(afterId, limit) {
      const rows = await k
        .selectFrom('decisions')
        .select(['id', 'task_id'])
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      const taskIds = [...new Set(rows.map((r) => r.task_id).filter((id): id is number => id !== null))];
      return { taskIds, latest: rows.length ? Number(rows[rows.length - 1]!.id) : afterId };
    },
  };
}

/** Issue 33: the summary strip's counts, by the same words as the loop state (one pass over the Tasks). */
async function summary(k: Kysely<Database>, f: { dayStart: string; monthStart: string }): Promise<BoardSummary> {
  const [counts, spend] = await Promise.all([
    k
      .selectFrom('tasks as t')
      .select([LOOP_STATE.as('loop_state'), 't.ci_state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('t.state', '=', 'open')
      .groupBy([LOOP_STATE, 't.ci_state'])
      .execute(),
    k
      .selectFrom('spends')
      .select([
        sql<number>`coalesce(sum(case when created_at >= ${f.dayStart} then model + sandbox else 0 end), 0)`.as('day'),
        sql<number>`coalesce(sum(model + sandbox), 0)`.as('month'),
      ])
      .where('created_at', '>=', f.monthStart)
      .executeTakeFirst(),
  ]);
  const s: BoardSummary = {
    needsYou: 0,
    beingFixed: 0,
    redWaiting: 0,
    parkedOrOff: 0,
    spendToday: Number(spend?.day ?? 0),
    spendMonth: Number(spend?.month ?? 0),
  };
  for (const c of counts) {
    const n = Number(c.n);
    if (c.loop_state === 'needs_person') s.needsYou += n;
    else if (c.loop_state === 'agent_running') s.beingFixed += n;
    else if (c.loop_state === 'parked' || c.loop_state === 'off') s.parkedOrOff += n;
    else if (c.ci_state === 'red') s.redWaiting += n;
  }
  return s;
}

function escapeLike(s: string): string {
  // Neither dialect escapes by default in LIKE without ESCAPE; wildcards typed by a person are dropped.
  return s.replace(/[%_\\]/g, '');
}
