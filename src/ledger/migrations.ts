// Schema migrations, held inline (not read from a folder at run time) so a built copy carries them.
// Both dialects run the same migrations; only the auto-increment key differs. Kysely's migrator
// takes a lock, so two replicas starting at once apply each migration exactly once (N1).
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Dialect } from './db.js';
import { addColumnOnce, withId, type AnyDb } from './migration-helpers.js';
import { mergeQueueMigration, rejectionFindingsMigration } from './migrations-issue-36.js';
import { baseRedOutboxMigration, baseRedsMigration } from './migrations-base-reds.js';

function migrations(dialect: Dialect): Record<string, Migration> {
  const id = withId(dialect);
  return {
    '0001_core_loop': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('settings')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .execute();

        await id(db.schema.createTable('events'))
          .addColumn('identity', 'text', (c) => c.notNull().unique())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('event_name', 'text', (c) => c.notNull())
          .addColumn('delivery_id', 'text', (c) => c.notNull())
          .addColumn('repository', 'text')
          .addColumn('sha', 'text')
          .addColumn('verdict', 'text')
          .addColumn('summary', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('received_at', 'text', (c) => c.notNull())
          .execute();
        // Stored events not yet evaluated. A small table of its own: marking an event evaluated is a
        // delete here, not an update that would rewrite the event row and its payload.
        await db.schema
          .createTable('pending_events')
          .addColumn('event_id', 'integer', (c) => c.primaryKey())
          .execute();

        await id(db.schema.createTable('decisions'))
          .addColumn('delivery_id', 'text')
          .addColumn('event_name', 'text')
          .addColumn('identity', 'text')
          .addColumn('event_id', 'integer')
          .addColumn('task_id', 'integer')
          .addColumn('attempt_id', 'integer')
          .addColumn('outcome', 'text', (c) => c.notNull())
          .addColumn('reason', 'text')
          .addColumn('detail', 'text')
          .addColumn('at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('decisions_task').on('decisions').columns(['task_id', 'id']).execute();
        await db.schema.createIndex('decisions_delivery').on('decisions').columns(['delivery_id']).execute();

        await id(db.schema.createTable('tasks'))
          .addColumn('work', 'text', (c) => c.notNull())
          .addColumn('repository', 'text', (c) => c.notNull())
          .addColumn('pr_number', 'integer', (c) => c.notNull())
          .addColumn('branch', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('pr_state', 'text', (c) => c.notNull())
          .addColumn('branch_state', 'text', (c) => c.notNull())
          .addColumn('is_fork', 'integer', (c) => c.notNull())
          .addColumn('ci_head_sha', 'text')
          .addColumn('ci_head_seen_at', 'text')
          .addColumn('ci_state', 'text', (c) => c.notNull())
          .addColumn('notice_at', 'text')
          .addColumn('resume_ref', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('tasks_repository_pr', ['repository', 'pr_number'])
          .execute();
        await db.schema.createIndex('tasks_branch').on('tasks').columns(['repository', 'branch']).execute();

        await id(db.schema.createTable('runs'))
          .addColumn('task_id', 'integer', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('auto_resume', 'integer', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('attempt_id', 'integer')
          .addColumn('token_hash', 'text')
          .addColumn('exit_code', 'integer')
          .addColumn('log', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('runs_task').on('runs').columns(['task_id', 'id']).execute();
        // One run per attempt, enforced by the database (never dispatched twice).
        await db.schema.createIndex('runs_attempt').on('runs').column('attempt_id').unique().execute();

        await id(db.schema.createTable('attempts'))
          .addColumn('task_id', 'integer', (c) => c.notNull())
          .addColumn('coordinate', 'text', (c) => c.notNull())
          .addColumn('source', 'text', (c) => c.notNull())
          .addColumn('head_sha', 'text')
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('rejection_id', 'integer')
          .addColumn('run_id', 'integer')
          .addColumn('detail', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          // C2: the claim. Every delivery for the same head collapses onto this one row.
          .addUniqueConstraint('attempts_task_coordinate', ['task_id', 'coordinate'])
          .execute();

        await id(db.schema.createTable('rejections'))
          .addColumn('task_id', 'integer', (c) => c.notNull())
          .addColumn('source', 'text', (c) => c.notNull())
          .addColumn('head_sha', 'text')
          .addColumn('check_name', 'text')
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('event_id', 'integer')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('rejections_task').on('rejections').columns(['task_id', 'id']).execute();

        await id(db.schema.createTable('notices'))
          .addColumn('task_id', 'integer', (c) => c.notNull())
          // One notice per Task per stop; a stop opens a new round only after a person's approve-one (K5).
          .addColumn('round', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('head_sha', 'text')
          .addColumn('attempts_used', 'integer', (c) => c.notNull())
          .addColumn('message', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('notices_task_round', ['task_id', 'round'])
          .execute();
      },
    },
    '0002_poll_and_handoff': {
      async up(db: AnyDb) {
        // E1: when the poll last read the pull request, and the per-PR lease across replicas.
        await db.schema.alterTable('tasks').addColumn('polled_at', 'text').execute();
        await db.schema.alterTable('tasks').addColumn('poll_lease_until', 'text').execute();
        // K5: the stop round (bumped by approve-one), extra attempts granted, parking, the hand-off.
        await db.schema
          .alterTable('tasks')
          .addColumn('stop_round', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable('tasks')
          .addColumn('extra_attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable('tasks')
          .addColumn('approve_one_pending', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema.alterTable('tasks').addColumn('parked_at', 'text').execute();
        await db.schema.alterTable('tasks').addColumn('handoff_at', 'text').execute();
        // K8: GitHub comment ids outgrow 32 bits: kept as text.
        await db.schema.alterTable('tasks').addColumn('state_comment_id', 'text').execute();
        await db.schema
          .alterTable('tasks')
          .addColumn('adopted', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        // B4: the green gate's last verdict and its reasons, as JSON, for the Task's API view.
        await db.schema.alterTable('tasks').addColumn('gate', 'text').execute();
      },
    },
    '0003_outcomes_and_guards': {
      async up(db: AnyDb) {
        // I1–I4: the attempt's lifecycle next to its dispatch fate, the first-write outcome, and the
        // snapshot progress is measured against. Rows from before this migration are settled history.
        await db.schema
          .alterTable('attempts')
          .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued'))
          .execute();
        await sql`update attempts set state = 'acknowledged'`.execute(db);
        for (const col of [
          'outcome',
          'outcome_reason',
          'outcome_at',
          'action_taken_at',
          'baseline',
          'diff_hash',
        ] as const) {
          await db.schema.alterTable('attempts').addColumn(col, 'text').execute();
        }
        await db.schema.alterTable('attempts').addColumn('retry_of', 'integer').execute();
        // K7: one attempt in flight per pull request, across every replica — a partial unique index.
        await db.schema
          .createIndex('attempts_one_in_flight')
          .on('attempts')
          .column('task_id')
          .unique()
          .where(sql.ref('state'), 'in', ['queued', 'running', 'awaiting_progress'])
          .execute();
        await db.schema.createIndex('runs_token').on('runs').column('token_hash').execute();
        // K9: when a person last acted on the Task (their resume, approve-one, state change).
        await db.schema.alterTable('tasks').addColumn('human_at', 'text').execute();
        // K6: what each run reported spending, and the CI minutes each head's check runs took.
        await id(db.schema.createTable('spends'))
          .addColumn('task_id', 'integer', (c) => c.notNull())
          .addColumn('run_id', 'integer')
          .addColumn('model', 'real', (c) => c.notNull())
          .addColumn('sandbox', 'real', (c) => c.notNull())
          .addColumn('note', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('spends_task').on('spends').column('task_id').execute();
        await db.schema
          .createTable('ci_usage')
          .addColumn('task_id', 'integer', (c) => c.notNull())
          .addColumn('head_sha', 'text', (c) => c.notNull())
          .addColumn('minutes', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('ci_usage_pk', ['task_id', 'head_sha'])
          .execute();
      },
    },
    '0004_inline_payloads': {
      async up(db: AnyDb) {
        // PostgreSQL moves any row over ~2 KB out to its TOAST table, a chunk row and an index entry
        // per 2 KB: a 12 KB delivery cost three extra tuples. Compressed, it fits its own page, so
        // the row is only squeezed once it passes a page's size and stays inline (bench/, decision 0005).
        // SQLite keeps long rows in overflow pages of the same file; nothing to do there.
        if (dialect === 'postgres') await sql`alter table events set (toast_tuple_target = 8160)`.execute(db);
      },
    },
    '0005_run_process': {
      async up(db: AnyDb) {
        // Where a command runner's agent process lives and which fixloop process started it (JSON of
        // a ProcessMark, core/stranded-run.ts), so a later process can end a run whose agent died
        // with its fixloop, or watch one that outlived it. One column, so one statement: SQLite runs
        // DDL outside the migrator's transaction, and a half-applied migration must not be possible.
        await db.schema.alterTable('runs').addColumn('process', 'text').execute();
      },
    },
    '0006_unfinished_runs': {
      async up(db: AnyDb) {
        // The stranded-run pass reads the unfinished runs every 30 s on every process (decision 0013):
        // a partial index, so it reads those few rows and not the whole history of runs. The runs
        // table is small next to events or decisions, so building it is quick on PostgreSQL too.
        // if not exists: SQLite runs DDL outside the migrator's transaction, so a crash between the
        // index and the migration's row must not make the next start fail on it.
        await db.schema
          .createIndex('runs_unfinished')
          .ifNotExists()
          .on('runs')
          .column('id')
          .where(sql.ref('state'), 'in', ['queued', 'running'])
          .execute();
      },
    },
    '0007_unsettled_attempts': {
      async up(db: AnyDb) {
        // The same periodic pass reads the attempts left claimed or dispatching (decisions 0013,
        // 0014): a partial index of those few, not a scan of every attempt ever claimed.
        await db.schema
          .createIndex('attempts_unsettled')
          .ifNotExists()
          .on('attempts')
          .column('id')
          .where(sql.ref('status'), 'in', ['claimed', 'dispatching'])
          .execute();
      },
    },
    '0008_never_run_out_of_flight': {
      async up(db: AnyDb) {
        // An attempt settled never to run now leaves flight in the same write (NEVER_RUN_STATUSES).
        // Before, that was a second write, and a crash between the two left the attempt `queued`,
        // holding its pull request's one in-flight slot (K7) for good: released here. Idempotent.
        await db
          .updateTable('attempts')
          .set({ state: 'acknowledged' })
          .where('state', '=', 'queued')
          .where('status', 'in', ['over_budget', 'dispatch_failed', 'not_dispatched', 'dispatch_unknown'])
          .execute();
      },
    },
    '0009_rejection_author': {
      async up(db: AnyDb) {
        // F1: who wrote a review rejection (login, type, association, as JSON), so the poll's re-offer
        // and the doorbell check the author's standing again (decision 0018). Rows from before have
        // none, and count as without standing. One column, one statement (see 0005).
        await db.schema.alterTable('rejections').addColumn('author', 'text').execute();
      },
    },
    '0010_run_agent_seen': {
      async up(db: AnyDb) {
        // I5: when the run's agent first called fixloop with its run token (MCP or API). A run that ends
        // without one never reached fixloop, and is handed to a person instead of retried (decision 0022).
        await db.schema.alterTable('runs').addColumn('agent_seen_at', 'text').execute();
      },
    },
    '0011_task_loop_off': {
      async up(db: AnyDb) {
        // M4: the dashboard's board pages Tasks newest first, filtered by state: an index, so a page
        // reads its rows, not all 10,000 Tasks. Built first and `if not exists`, the column last: SQLite
        // runs DDL outside the migrator's transaction (see 0005), so a crash before the column leaves a
        // migration that applies again cleanly.
        await db.schema.createIndex('tasks_state_id').ifNotExists().on('tasks').columns(['state', 'id']).execute();
        // M4: a person's per-Task switch; the gate refuses `loop_off` while it is set.
        await db.schema
          .alterTable('tasks')
          .addColumn('loop_off', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },
    '0012_notice_outbox': {
      async up(db: AnyDb) {
        // G1/P4: one row per notice and configured sink, written in the notice's own transaction; a
        // delivery worker claims due rows by a lease (decision 0025). `if not exists` throughout: SQLite
        // runs DDL outside the migrator's transaction (see 0005), so a crash in between applies again.
        await id(db.schema.createTable('notice_outbox').ifNotExists())
          .addColumn('notice_id', 'integer', (c) => c.notNull())
          .addColumn('sink', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_at', 'text', (c) => c.notNull())
          .addColumn('lease_owner', 'text')
          .addColumn('lease_until', 'text')
          .addColumn('last_error', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('delivered_at', 'text')
          .addUniqueConstraint('notice_outbox_notice_sink', ['notice_id', 'sink'])
          .execute();
        // The worker's claim and outboxDepth() read only the pending few, never every delivery ever made.
        await db.schema
          .createIndex('notice_outbox_pending')
          .ifNotExists()
          .on('notice_outbox')
          .columns(['sink', 'next_at'])
          .where(sql.ref('state'), '=', 'pending')
          .execute();
      },
    },
    '0013_task_skip_label': {
      async up(db: AnyDb) {
        // The pull request's `fixloop:skip` label, mirrored by its webhooks and the poll. One column,
        // one statement (see 0005).
        await db.schema
          .alterTable('tasks')
          .addColumn('skip_label', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },
    '0014_task_commit_status': {
      async up(db: AnyDb) {
        // P3: the `fixloop` commit status last written, as `sha state:description`, so a tick writes
        // only what changed. One column, one statement (see 0005).
        await db.schema.alterTable('tasks').addColumn('commit_status', 'text').execute();
      },
    },
    '0015_reruns': {
      async up(db: AnyDb) {
        // Issue 17: a re-run of a head's failed jobs is claimed like an attempt, before GitHub is asked;
        // the unique (task, head, ordinal) is the claim, so under a storm or across replicas one wins
        // each of the head's re-runs (decision 0030). One statement (see 0005).
        await id(db.schema.createTable('reruns').ifNotExists())
          .addColumn('task_id', 'integer', (c) => c.notNull())
          .addColumn('head_sha', 'text', (c) => c.notNull())
          .addColumn('ordinal', 'integer', (c) => c.notNull())
          .addColumn('check_run_ids', 'text', (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('workflow_run_ids', 'text')
          .addColumn('http_status', 'integer')
          .addColumn('detail', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('reruns_task_head_ordinal', ['task_id', 'head_sha', 'ordinal'])
          .execute();
      },
    },
    '0016_poll_at_scale': {
      async up(db: AnyDb) {
        // N3 (decision 0031): the poll claims slices of due open Tasks by this index, oldest read
        // first, instead of scanning every Task. `if not exists` throughout and the column last:
        // SQLite runs DDL outside the migrator's transaction (see 0005), so a crash in between applies
        // again cleanly.
        await db.schema
          .createIndex('tasks_poll_due')
          .ifNotExists()
          .on('tasks')
          .columns(['state', 'pr_state', 'polled_at'])
          .execute();
        // The answers of GitHub's conditional requests, kept for every open Task so replicas and
        // restarts send If-None-Match (a 304 costs no rate limit); pruned by age.
        await db.schema
          .createTable('github_etags')
          .ifNotExists()
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('etag', 'text', (c) => c.notNull())
          .addColumn('value', 'text', (c) => c.notNull())
          .addColumn('stored_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('github_etags_stored_at')
          .ifNotExists()
          .on('github_etags')
          .columns(['stored_at'])
          .execute();
        // What the poll last saw of the pull request (head, state, update time, check rollup): an
        // unchanged one is not read deeper.
        await db.schema.alterTable('tasks').addColumn('poll_signature', 'text').execute();
      },
    },
    '0017_events_by_head': {
      async up(db: AnyDb) {
        // T6 (decision 0029): the gate reads a head's stored CI deliveries back to judge its whole
        // matrix; by this index, not a scan of every event ever stored. One statement (see 0005).
        await db.schema.createIndex('events_head').ifNotExists().on('events').columns(['repository', 'sha']).execute();
      },
    },
    '0018_task_base_ref': {
      async up(db: AnyDb) {
        // T1: the branch the pull request merges into, mirrored by the poll and pull_request webhooks,
        // so triage reads the base's checks without reading the pull request again. One statement (0005).
        await db.schema.alterTable('tasks').addColumn('base_ref', 'text').execute();
      },
    },
    '0019_base_holds': {
      async up(db: AnyDb) {
        // T1: a red result held back because the base failed its check too stays held when it is offered
        // again (the poll's re-offer, a redelivery), whatever the base does later; the primary key holds
        // it once. One statement (see 0005).
        await db.schema
          .createTable('base_holds')
          .ifNotExists()
          .addColumn('task_id', 'integer', (c) => c.notNull())
          .addColumn('head_sha', 'text', (c) => c.notNull())
          .addColumn('result_key', 'text', (c) => c.notNull())
          .addColumn('base_ref', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('base_holds_pk', ['task_id', 'head_sha', 'result_key'])
          .execute();
      },
    },
    '0020_grant_cap': {
      async up(db: AnyDb) {
        // V4, K5 (decision 0044): the Task's own cap on a person's grants of one more attempt, set by a
        // person through the API; null = the configured cap. The grants used are `extra_attempts`.
        // One statement (see 0005).
        await db.schema.alterTable('tasks').addColumn('max_grants', 'integer').execute();
      },
    },
    '0021_interrupted_runs': {
      async up(db: AnyDb) {
        // V4 (decision 0043): a run a shutdown or a crash interrupted is offered again once, free, as
        // the same attempt row (the budget counts rows, C3), so that row may now have a second run:
        // `runs.offer` tells them apart and the one-run-per-attempt index becomes one run per offer.
        // An older replica writes offer 0 by default, so for it the index still means one run per
        // attempt. SQLite runs DDL outside the migrator's transaction (see 0005): every step here
        // applies again cleanly after a crash in between.
        await addColumnOnce(db, dialect, 'attempts', 'interruptions', 'integer not null default 0');
        await addColumnOnce(db, dialect, 'runs', 'interrupted_at', 'text');
        await addColumnOnce(db, dialect, 'runs', 'offer', 'integer not null default 0');
        await db.schema
          .createIndex('runs_attempt_offer')
          .ifNotExists()
          .on('runs')
          .columns(['attempt_id', 'offer'])
          .unique()
          .execute();
        await db.schema.dropIndex('runs_attempt').ifExists().execute();
      },
    },
    '0022_dashboard_sessions': {
      async up(db: AnyDb) {
        // M4 (issue 31, decision 0046): a dashboard sign-in is a row, so sign-out and "sign out
        // everywhere" end it on every replica. Only a keyed hash of the cookie's secret is kept; expired
        // rows are deleted at the next sign-in, by the expiry index. `if not exists` throughout (see 0005).
        await db.schema
          .createTable('dashboard_sessions')
          .ifNotExists()
          .addColumn('secret_hash', 'text', (c) => c.primaryKey())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('last_seen_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('dashboard_sessions_expires')
          .ifNotExists()
          .on('dashboard_sessions')
          .columns(['expires_at'])
          .execute();
      },
    },
    '0023_results_facts': {
      async up(db: AnyDb) {
        // V1 (issue 33, docs/results.md): when the poll last saw the Task's head pass, and which head, so
        // Results can tell the time from first red to green and a head moved after green. Indexes by
        // time, so a period's reds, attempts, notices, spend and people's actions are read alone, not
        // every row ever written. `if not exists` throughout, columns first (see 0005, 0021).
        await addColumnOnce(db, dialect, 'tasks', 'green_at', 'text');
        await addColumnOnce(db, dialect, 'tasks', 'green_sha', 'text');
        // Each index carries the columns Results reads, so a period is read from the index alone (a
        // rejection's row holds its long body: reading rows would read pages of failure text).
        for (const [name, table, columns] of [
          ['rejections_created', 'rejections', ['created_at', 'source', 'task_id', 'check_name']],
          ['attempts_created', 'attempts', ['created_at', 'task_id', 'source', 'rejection_id']],
          ['notices_created', 'notices', ['created_at', 'task_id', 'reason']],
          ['spends_created', 'spends', ['created_at', 'run_id', 'task_id', 'model', 'sandbox']],
        ] as const) {
          await db.schema
            .createIndex(name)
            .ifNotExists()
            .on(table)
            .columns([...columns])
            .execute();
        }
        await db.schema
          .createIndex('decisions_acted')
          .ifNotExists()
          .on('decisions')
          .column('at')
          .where(sql.ref('outcome'), '=', 'acted')
          .execute();
      },
    },
    '0024_task_people_facts': {
      async up(db: AnyDb) {
        // Issue 33: the pull request's title and author, as the poll last read them, for the board.
        await addColumnOnce(db, dialect, 'tasks', 'pr_title', 'text');
        await addColumnOnce(db, dialect, 'tasks', 'pr_author', 'text');
      },
    },
    '0025_neutral_event_kinds': {
      async up(db: AnyDb) {
        // Issue 34 (decision 0060): the core's event kinds no longer name a host. Stored rows take the
        // neutral names, in the kind column and in the classified event kept as JSON beside it; the
        // same statements on both dialects (replace() is in both).
        for (const [legacy, neutral] of LEGACY_EVENT_KINDS) {
          await sql`update events set kind = ${neutral}, summary = replace(summary, ${`"kind":"${legacy}"`}, ${`"kind":"${neutral}"`}) where kind = ${legacy}`.execute(
            db,
          );
        }
      },
    },
    '0026_run_external_ref': {
      async up(db: AnyDb) {
        // Issue 35 item 3: what a remote runner's run is called where it runs (the actions runner: the
        // workflow run's id), so its OIDC token can be matched to the fixloop run it belongs to.
        await addColumnOnce(db, dialect, 'runs', 'external_ref', 'text');
        await db.schema.createIndex('runs_external_ref').ifNotExists().on('runs').column('external_ref').execute();
      },
    },
    '0028_base_reds': baseRedsMigration(dialect),
    '0029_rejection_findings': rejectionFindingsMigration(dialect),
    '0031_rejection_merge_queue': mergeQueueMigration(dialect),
    '0033_base_red_outbox': baseRedOutboxMigration(dialect),
  };
}

/** The host-named kinds stored before 0025, and their neutral names (read tolerantly in deliveries.ts). */
export const LEGACY_EVENT_KINDS = [
  ['github.check', 'ci.result'],
  ['github.pull_request', 'pr.changed'],
  ['github.review', 'review.submitted'],
  ['github.comment', 'comment'],
] as const;

/** A CI result's stored kind, before and after 0025: a replica still on the old release may write the old one. */
export const CI_RESULT_KINDS = ['ci.result', 'github.check'];

class InlineProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

export async function migrateToLatest(db: AnyDb, dialect: Dialect): Promise<void> {
  const migrator = new Migrator({ db, provider: new InlineProvider(dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(
      `migration ${failed?.migrationName ?? '?'} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Up to and including `name` only (tests: a database as an older release left it). */
export async function migrateTo(db: AnyDb, dialect: Dialect, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: new InlineProvider(dialect) }).migrateTo(name);
  if (error)
    throw new Error(`migration to ${name} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
}

export async function migrationsApplied(db: AnyDb, dialect: Dialect): Promise<boolean> {
  try {
    const expected = Object.keys(migrations(dialect));
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const have = new Set(rows.rows.map((r) => r.name));
    return expected.every((m) => have.has(m));
  } catch {
    return false;
  }
}
