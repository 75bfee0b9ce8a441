// N1: migrations are safe when two replicas start at once; readiness reports them applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from './support/databases.js';
import { openDatabase } from '../src/ledger/db.js';
import { migrateTo, migrateToLatest, migrationsApplied } from '../src/ledger/migrations.js';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/ledger/schema.js';
import { createLedger } from '../src/ledger/ledger.js';
import { unfinishedMarkedRuns } from '../src/ledger/runs.js';
import { unsettledAttempts } from '../src/ledger/attempts.js';

test('N1: two replicas migrating one PostgreSQL database at the same moment both succeed, once', async () => {
  const db = await createTestDatabase('postgres');
  const a = openDatabase(db.url);
  const b = openDatabase(db.url);
  try {
    assert.equal(await migrationsApplied(a.kysely, a.dialect), false);
    await Promise.all([migrateToLatest(a.kysely, 'postgres'), migrateToLatest(b.kysely, 'postgres')]);
    assert.equal(await migrationsApplied(a.kysely, a.dialect), true);
    // Each migration recorded exactly once, though two replicas ran the migrator together.
    const rows = (await a.kysely
      .selectFrom('kysely_migration' as never)
      .selectAll()
      .execute()) as Array<{ name: string }>;
    assert.deepEqual(rows.map((r) => r.name).sort(), [
      '0001_core_loop',
      '0002_poll_and_handoff',
      '0003_outcomes_and_guards',
      '0004_inline_payloads',
      '0005_run_process',
      '0006_unfinished_runs',
      '0007_unsettled_attempts',
      '0008_never_run_out_of_flight',
      '0009_rejection_author',
      '0010_run_agent_seen',
      '0011_task_loop_off',
      '0012_notice_outbox',
      '0013_task_skip_label',
      '0014_task_commit_status',
      '0015_reruns',
      '0016_poll_at_scale',
      '0017_events_by_head',
      '0018_task_base_ref',
      '0019_base_holds',
      '0020_grant_cap',
      '0021_interrupted_runs',
      '0022_dashboard_sessions',
      '0023_results_facts',
      '0024_task_people_facts',
      '0025_neutral_event_kinds',
      '0026_run_external_ref',
      '0028_base_reds',
      '0029_rejection_findings',
      '0031_rejection_merge_queue',
      '0033_base_red_outbox',
    ]);
  } finally {
    await a.close();
    await b.close();
    await db.drop();
  }
});

test('N1: SQLite migrates once and a second start is a no-op', async () => {
  const db = await createTestDatabase('sqlite');
  const a = openDatabase(db.url);
  try {
    await migrateToLatest(a.kysely, 'sqlite');
    await migrateToLatest(a.kysely, 'sqlite');
    assert.equal(await migrationsApplied(a.kysely, a.dialect), true);
  } finally {
    await a.close();
    await db.drop();
  }
});

test('N1: on PostgreSQL a 12 KB delivery is stored compressed in its own row, with nothing in the TOAST table', async () => {
  const db = await createTestDatabase('postgres');
  const a = openDatabase(db.url);
  try {
    await migrateToLatest(a.kysely, 'postgres');
    const payload = JSON.stringify({
      text: Array.from({ length: 400 }, (_, i) => `line ${i}: https://api.github.com/repos/acme/shop/check-runs/${i}`),
    });
    assert.ok(payload.length > 12_000);
    const l = createLedger(a, { now: () => new Date('2026-01-05T10:00:00Z') });
    await l.storeDeliveries(
      [
        {
          deliveryId: 'd1',
          eventName: 'check_run',
          identity: 'check:x',
          kind: 'ci.result',
          repository: 'acme/shop',
          sha: 'a'.repeat(40),
          verdict: 'red',
          summary: '{}',
          payload,
        },
      ],
      [],
    );
    const toast = await sql<{
      size: string;
    }>`select pg_relation_size(reltoastrelid) as size from pg_class where relname = 'events'`.execute(a.kysely);
    assert.equal(Number(toast.rows[0]!.size), 0, 'the TOAST table holds nothing');
    const stored = await sql<{
      payload: string;
      raw: number;
    }>`select payload, pg_column_size(payload) as raw from events`.execute(a.kysely);
    assert.equal(stored.rows[0]!.payload, payload, 'read back byte for byte');
    assert.ok(Number(stored.rows[0]!.raw) < payload.length / 2, 'kept compressed');
  } finally {
    await a.close();
    await db.drop();
  }
});

// The periodic passes (decisions 0013, 0014) ask every 30 s for the unfinished runs and for the
// attempts left claimed or dispatching: the plans of the ledger's own queries use the partial
// indexes, not a scan of every run or attempt there ever was.
const PARTIAL_INDEX_QUERIES = [
  {
    migration: '0006',
    what: 'unfinished-runs',
    index: 'runs_unfinished',
    query: (k: Kysely<Database>) => unfinishedMarkedRuns(k),
  },
  {
    migration: '0007',
    what: 'unsettled-attempts (claimed)',
    index: 'attempts_unsettled',
    query: (k: Kysely<Database>) => unsettledAttempts(k, ['claimed'], '2026-11-30T08:00:00.000Z'),
  },
  {
    migration: '0007',
    what: 'unsettled-attempts (dispatching)',
    index: 'attempts_unsettled',
    query: (k: Kysely<Database>) => unsettledAttempts(k, ['dispatching'], '2026-11-30T08:00:00.000Z'),
  },
];
for (const kind of ['sqlite', 'postgres'] as const) {
  for (const q of PARTIAL_INDEX_QUERIES) {
    test(`${q.migration}: the ${q.what} query is answered from the partial index (${kind})`, async () => {
      const db = await createTestDatabase(kind);
      const a = openDatabase(db.url);
      try {
        await migrateToLatest(a.kysely, kind);
        const query = q.query(a.kysely).compile();
        // A handful of rows is cheaper to scan; the question is whether the index can serve the
        // query. One connection, so PostgreSQL's setting applies to the EXPLAIN.
        const plan = await a.kysely.connection().execute(async (c) => {
          if (kind === 'postgres') await sql`set enable_seqscan = off`.execute(c);
          const explain = kind === 'sqlite' ? 'explain query plan' : 'explain';
          const rows = await c.executeQuery<Record<string, string>>({
            ...query,
            sql: `${explain} ${query.sql}`,
          } as never);
          return rows.rows.map((r) => (kind === 'sqlite' ? r.detail : r['QUERY PLAN'])).join('\n');
        });
        assert.match(plan, new RegExp(q.index), plan);
      } finally {
        await a.close();
        await db.drop();
      }
    });
  }
}

// Decision 0013's amendment: a never-run attempt left `queued` by a crash between the old two writes
// held its pull request's one in-flight slot (K7) for good; migration 0008 releases it.
for (const kind of ['sqlite', 'postgres'] as const) {
  test(`0008: attempts an older release left settled but in flight are taken out of flight (${kind})`, async () => {
    const db = await createTestDatabase(kind);
    const a = openDatabase(db.url);
    try {
      await migrateTo(a.kysely, kind, '0007_unsettled_attempts');
      const ledger = createLedger(a, { now: () => new Date('2026-11-30T10:00:00Z') });
      const ids: Record<string, number> = {};
      for (const [n, status] of [
        [1, 'over_budget'],
        [2, 'dispatch_unknown'],
        [3, 'dispatched'],
      ] as const) {
        const created = await ledger.createTask({
          work: 'shop',
          repository: 'acme/shop',
          pullRequest: n,
          branch: `agent/fix-${n}`,
          resumeRef: null,
        });
        assert.ok('task' in created);
        const c = await ledger.claimAttempt({
          taskId: created.task.id,
          coordinate: `sha-${n}`,
          source: 'gate',
          headSha: `sha-${n}`,
          fingerprint: `f${n}`,
          rejection: { checkName: 'test', body: 'red', eventId: null },
        });
        assert.equal(c.kind, 'claimed');
        // As the old release wrote it: the status alone, the lifecycle left queued.
        if (c.kind === 'claimed')
          await a.kysely.updateTable('attempts').set({ status }).where('id', '=', c.attempt.id).execute();
        if (c.kind === 'claimed') ids[status] = c.attempt.id;
      }
      await migrateToLatest(a.kysely, kind);
      const states = await a.kysely.selectFrom('attempts').select(['id', 'state']).execute();
      const stateOf = (id: number | undefined) => states.find((r) => r.id === id)?.state;
      assert.equal(stateOf(ids.over_budget), 'acknowledged');
      assert.equal(stateOf(ids.dispatch_unknown), 'acknowledged');
      assert.equal(stateOf(ids.dispatched), 'queued', 'an attempt that went ahead stays in flight');
    } finally {
      await a.close();
      await db.drop();
    }
  });
}

// Issue 34 (decision 0060): events stored under the host-named kinds take the neutral names, in the
// kind column and in the classified event kept beside it, and a red stored before is still found.
for (const kind of ['sqlite', 'postgres'] as const) {
  test(`0025: stored github.* event kinds are rewritten to the neutral kinds (${kind})`, async () => {
    const db = await createTestDatabase(kind);
    const a = openDatabase(db.url);
    try {
      await migrateTo(a.kysely, kind, '0024_task_people_facts');
      const legacy = [
        ['check:1', 'github.check', 'red'],
        ['pr:1', 'github.pull_request', null],
        ['review:1', 'github.review', null],
        ['comment:1', 'github.comment', null],
      ] as const;
      for (const [identity, k, verdict] of legacy) {
        await a.kysely
          .insertInto('events')
          .values({
            identity,
            kind: k,
            event_name: 'x',
            delivery_id: identity,
            repository: 'acme/shop',
            sha: 'a'.repeat(40),
            verdict,
            summary: JSON.stringify({ kind: k, identity }),
            payload: '{}',
            received_at: '2026-12-05T10:00:00Z',
          })
          .execute();
      }
      await migrateToLatest(a.kysely, kind);
      const rows = await a.kysely.selectFrom('events').select(['identity', 'kind', 'summary']).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => [r.identity, r.kind, JSON.parse(r.summary).kind]),
        [
          ['check:1', 'ci.result', 'ci.result'],
          ['pr:1', 'pr.changed', 'pr.changed'],
          ['review:1', 'review.submitted', 'review.submitted'],
          ['comment:1', 'comment', 'comment'],
        ],
      );
      const ledger = createLedger(a, { now: () => new Date('2026-12-05T10:00:00Z') });
      const red = await ledger.lastRedEvent('acme/shop', 'a'.repeat(40));
      assert.equal(red?.identity, 'check:1');
      assert.equal(red?.kind, 'ci.result');
    } finally {
      await a.close();
      await db.drop();
    }
  });
}

test('0025: a CI result an older replica writes after the migration is still read as a ci.result', async () => {
  const db = await createTestDatabase('sqlite');
  const a = openDatabase(db.url);
  try {
    await migrateToLatest(a.kysely, 'sqlite');
    await a.kysely
      .insertInto('events')
      .values({
        identity: 'check:old',
        kind: 'github.check',
        event_name: 'check_run',
        delivery_id: 'd-old',
        repository: 'acme/shop',
        sha: 'b'.repeat(40),
        verdict: 'red',
        summary: '{}',
        payload: '{}',
        received_at: '2026-12-05T10:00:00Z',
      })
      .execute();
    const ledger = createLedger(a, { now: () => new Date('2026-12-05T10:00:00Z') });
    const red = await ledger.lastRedEvent('acme/shop', 'b'.repeat(40));
    assert.equal(red?.kind, 'ci.result');
    assert.equal((await ledger.headCheckEvents('acme/shop', 'b'.repeat(40), 5)).length, 1);
  } finally {
    await a.close();
    await db.drop();
  }
});

// Issue 36 item 6 (decision 0070): a bot round's findings fingerprint is kept on its rejection row, so
// a repeated round is seen after a restart; a row stored before 0029 reads as one without a fingerprint.
for (const kind of ['sqlite', 'postgres'] as const) {
  test(`0029: a rejection row keeps its findings fingerprint; one stored before reads without (${kind})`, async () => {
    const db = await createTestDatabase(kind);
    const a = openDatabase(db.url);
    try {
      await migrateTo(a.kysely, kind, '0026_run_external_ref');
      const ledger = createLedger(a, { now: () => new Date('2026-12-05T10:00:00Z') });
      const { task } = (await ledger.createTask({
        work: 'shop',
        repository: 'acme/shop',
        pullRequest: 7,
        branch: 'agent/x',
        resumeRef: null,
      })) as { task: { id: number } };
      const row = { taskId: task.id, source: 'bot' as const, headSha: null, checkName: null, eventId: null };
      const author = { login: 'coderabbitai[bot]', type: 'Bot', association: 'NONE' };
      await a.kysely
        .insertInto('rejections')
        .values({
          task_id: task.id,
          source: 'bot',
          head_sha: null,
          check_name: null,
          body: 'before',
          event_id: null,
          author: JSON.stringify(author),
          created_at: '2026-12-05T09:00:00Z',
        } as never)
        .execute();
      await migrateToLatest(a.kysely, kind);
      await ledger.createRejection({ ...row, body: 'round 2', author, findings: 'f'.repeat(32) });
      await ledger.createRejection({ ...row, body: 'a person', author: null });
      const rows = await ledger.listRejections(task.id);
      assert.deepEqual(
        rows.map((r) => [r.body, r.findings]),
        [
          ['before', undefined],
          ['round 2', 'f'.repeat(32)],
          ['a person', undefined],
        ],
      );
    } finally {
      await a.close();
      await db.drop();
    }
  });
}
