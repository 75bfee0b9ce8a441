// `npm run bench:dashboard`: the dashboard's reads at scale (SPEC M4, N-scale). Seeds a fresh SQLite
// ledger with 10,000 Tasks and 100,000 deliveries (their events and decision rows, 20,000 attempts,
// rejections and runs), then measures, over HTTP with a signed-in session:
//   1. the board's first page and a Task's timeline, p50/p99 (target p99 < 100 ms);
//   2. webhook acknowledgement p99 of signed red check runs at a steady rate, alone and while the
//      board is read once a second (target < 25 ms), and their ratio.
// A report, not a test: it exits 0 unless the benchmark itself broke. Options: --tasks=N --deliveries=N
// --seconds=N (each ack window) --rate=N (deliveries a second).
import { performance } from 'node:perf_hooks';
import { startHarness, API_TOKEN, REPO, SECRET, type Harness } from '../test/support/harness.js';
import { checkRunPayload, delivery, post } from '../test/support/deliveries.js';
import type { Insertable } from 'kysely';
import type { Database } from '../src/ledger/schema.js';

type Row<T extends keyof Database> = Insertable<Database[T]>;

const argv = process.argv.slice(2);
const opt = (name: string, d: number) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
const TASKS = opt('tasks', 10_000);
const DELIVERIES = opt('deliveries', 100_000);
const SECONDS = opt('seconds', 15);
const RATE = opt('rate', 20);
const AT = '2026-12-01T10:00:00.000Z';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function seed(h: Harness) {
  const k = h.app.db.kysely;
  const started = performance.now();
  const batch = async <T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>, size = 500) => {
    for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
  };
  const tasks = Array.from({ length: TASKS }, (_, i) => ({
    work: 'shop',
    repository: i % 10 === 0 ? 'acme/shop-site' : 'acme/shop',
    pr_number: 1000 + i,
    branch: `agent/fix-${i}`,
    state: i % 7 === 0 ? 'done' : 'open',
    pr_state: 'open',
    branch_state: 'present',
    is_fork: 0,
    ci_head_sha: null,
    ci_head_seen_at: null,
    ci_state: ['red', 'pending', 'passing', 'unknown'][i % 4]!,
    notice_at: i % 13 === 0 ? AT : null,
    resume_ref: null,
    created_at: AT,
    updated_at: AT,
  }));
  await k.transaction().execute((trx) => batch(tasks, (c) => trx.insertInto('tasks').values(c).execute()));
  const ids = (await k.selectFrom('tasks').select('id').orderBy('id').execute()).map((r) => r.id);
  const perTask = Math.max(1, Math.floor(DELIVERIES / ids.length));
  const events: Row<'events'>[] = [];
  const decisions: Row<'decisions'>[] = [];
  for (let d = 0; d < DELIVERIES; d++) {
    const taskId = ids[d % ids.length]!;
    const payload = JSON.stringify({ n: d, output: 'FAIL src/x.test.ts > case\n'.repeat(16) });
    events.push({
      identity: `check:acme/shop@${d.toString(16).padStart(40, '0')}:run:${d}:completed:failure`,
      kind: 'ci.result',
      event_name: 'check_run',
      delivery_id: `seed-${d}`,
      repository: 'acme/shop',
      sha: d.toString(16).padStart(40, '0'),
      verdict: 'red',
      summary: '{}',
      payload,
      received_at: AT,
    });
    decisions.push(
      {
        delivery_id: `seed-${d}`,
        event_name: 'check_run',
        identity: null,
        event_id: d + 1,
        task_id: null,
        attempt_id: null,
        outcome: 'stored',
        reason: null,
        detail: null,
        at: AT,
      },
      {
        delivery_id: `seed-${d}`,
        event_name: 'check_run',
        identity: null,
        event_id: d + 1,
        task_id: taskId,
        attempt_id: null,
        outcome: 'refused',
        reason: 'coordinate_claimed',
        detail: null,
        at: AT,
      },
    );
  }
  await k.transaction().execute(async (trx) => {
    await batch(events, (c) => trx.insertInto('events').values(c).execute());
    await batch(decisions, (c) => trx.insertInto('decisions').values(c).execute());
  });
  const attempts: Row<'attempts'>[] = [];
  const rejections: Row<'rejections'>[] = [];
  const runs: Row<'runs'>[] = [];
  for (const [i, taskId] of ids.entries()) {
    for (let a = 0; a < 2; a++) {
      attempts.push({
        task_id: taskId,
        coordinate: `seed-${a}`,
        source: 'gate',
        head_sha: null,
        fingerprint: `fp1:${i}${a}`,
        status: 'dispatched',
        state: 'acknowledged',
        rejection_id: null,
        run_id: null,
        detail: null,
        created_at: AT,
        updated_at: AT,
      });
      rejections.push({
        task_id: taskId,
        source: 'gate',
        head_sha: null,
        check_name: 'test',
        body: `Tests failed\n\nFAIL src/${i}.test.ts > case ${a}\n${'  at frame\n'.repeat(80)}`,
        event_id: null,
        created_at: AT,
      });
      runs.push({
        task_id: taskId,
        action: 'resume',
        auto_resume: 1,
        state: 'completed',
        attempt_id: null,
        token_hash: null,
        exit_code: 0,
        log: 'agent output\n'.repeat(40),
        created_at: AT,
        updated_at: AT,
      });
    }
  }
  await k.transaction().execute(async (trx) => {
    await batch(attempts, (c) => trx.insertInto('attempts').values(c).execute());
    await batch(rejections, (c) => trx.insertInto('rejections').values(c).execute());
    await batch(runs, (c) => trx.insertInto('runs').values(c).execute());
  });
  console.log(
    `seeded ${ids.length} Tasks, ${DELIVERIES} deliveries (${decisions.length} decision rows, ~${perTask} per Task), ` +
      `${attempts.length} attempts, rejections and runs in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return ids;
}

async function signIn(h: Harness): Promise<string> {
  const res = await fetch(`${h.url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: API_TOKEN }).toString(),
    redirect: 'manual',
  });
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

async function timed(url: string, cookie: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  await res.text();
  return performance.now() - t;
}

async function reads(h: Harness, cookie: string, ids: number[]) {
  const board: number[] = [];
  const timeline: number[] = [];
  for (let i = 0; i < 20; i++) await timed(`${h.url}/`, cookie); // warm-up
  for (let i = 0; i < 200; i++) board.push(await timed(`${h.url}/`, cookie));
  for (let i = 0; i < 200; i++) timeline.push(await timed(`${h.url}/tasks/${ids[(i * 7919) % ids.length]}`, cookie));
  const filtered: number[] = [];
  for (let i = 0; i < 50; i++)
    filtered.push(await timed(`${h.url}/?loop=needs_person&repository=acme/shop-site`, cookie));
  // V1: Results of a month that holds every seeded Task (the worst case: all 10,000 touched in it).
  const results: number[] = [];
  for (let i = 0; i < 5; i++) await timed(`${h.url}/results?from=2026-11-15&to=2026-12-14`, cookie); // warm-up
  for (let i = 0; i < 50; i++) results.push(await timed(`${h.url}/results?from=2026-11-15&to=2026-12-14`, cookie));
  return { board, timeline, filtered, results };
}

/** Signed red check runs at RATE a second for SECONDS; the acknowledgement time of each. */
async function acks(h: Harness, startN: number, whileReading: (() => Promise<unknown>) | null) {
  const times: number[] = [];
  const stop = performance.now() + SECONDS * 1000;
  let reader: NodeJS.Timeout | null = null;
  if (whileReading) reader = setInterval(() => void whileReading().catch(() => undefined), 1000);
  let n = startN;
  const inflight: Promise<void>[] = [];
  while (performance.now() < stop) {
    const i = n++;
    const pr = 1000 + ((i * 31) % TASKS);
    const sha = (0xabc000000 + i).toString(16).padStart(40, 'e');
    const d = delivery(
      'check_run',
      checkRunPayload({
        repo: REPO,
        sha,
        id: 900_000 + i,
        name: 'test',
        pr: { number: pr, headSha: sha },
        output: `FAIL case ${i}`,
      }),
    );
    inflight.push(
      (async () => {
        const t = performance.now();
        const res = await post(h.url, d, SECRET);
        if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
        times.push(performance.now() - t);
      })(),
    );
    await new Promise((r) => setTimeout(r, 1000 / RATE));
  }
  await Promise.all(inflight);
  if (reader) clearInterval(reader);
  await h.app.settle();
  return { times, next: n };
}

const h = await startHarness('sqlite');
try {
  const ids = await seed(h);
  const cookie = await signIn(h);
  const r = await reads(h, cookie, ids);
  console.log(
    `\nboard first page (50 of ${TASKS} Tasks), 200 reads: p50 ${ms(pct(r.board, 50))}, p99 ${ms(pct(r.board, 99))} (target < 100 ms)`,
  );
  console.log(
    `board filtered (loop state + repository), 50 reads: p50 ${ms(pct(r.filtered, 50))}, p99 ${ms(pct(r.filtered, 99))}`,
  );
  console.log(
    `timeline of a Task, 200 reads:    p50 ${ms(pct(r.timeline, 50))}, p99 ${ms(pct(r.timeline, 99))} (target < 100 ms)`,
  );
  console.log(
    `Results page (${TASKS} Tasks in the period), 50 reads: p50 ${ms(pct(r.results, 50))}, p99 ${ms(pct(r.results, 99))} (target < 100 ms)`,
  );
  const alone = await acks(h, 0, null);
  const busy = await acks(h, alone.next, () => timed(`${h.url}/`, cookie));
  const a = pct(alone.times, 99);
  const b = pct(busy.times, 99);
  console.log(
    `\nwebhook ack at ${RATE}/s for ${SECONDS} s, alone:                 n=${alone.times.length} p50 ${ms(pct(alone.times, 50))}, p99 ${ms(a)}`,
  );
  console.log(
    `webhook ack at ${RATE}/s for ${SECONDS} s, board read once a second: n=${busy.times.length} p50 ${ms(pct(busy.times, 50))}, p99 ${ms(b)} (target < 25 ms)`,
  );
  console.log(`ratio of ack p99 with the board read to without: ${(b / a).toFixed(2)}`);
  // V1: the Results page is the heaviest read; the webhook must still be answered quickly meanwhile.
  const withResults = await acks(h, busy.next, () => timed(`${h.url}/results?from=2026-11-15&to=2026-12-14`, cookie));
  console.log(
    `webhook ack at ${RATE}/s for ${SECONDS} s, Results read once a second: n=${withResults.times.length} p50 ${ms(pct(withResults.times, 50))}, p99 ${ms(pct(withResults.times, 99))} (target < 25 ms)`,
  );
} finally {
  await h.close();
}
