// `npm run bench:poll`: the poll at scale (SPEC N3, E1, E4; decision 0031), against the fake GitHub
// (a real HTTP server) counting requests the way GitHub does: a 304 to a conditional request is
// free, a GraphQL query costs its documented point score. Every Task is pending (a check still
// running), so every one is due every tick — the poll's worst case. For each size it measures, in
// this run, three ways of polling side by side:
//   before — REST, a 500-entry ETag cache in memory, branch protection read each time (issue 18's
//            measurement of the old poll, apart from its serial walk);
//   rest   — REST with every answer's ETag kept in the ledger and protection kept per base branch;
//   bulk   — fixloop's default: one GraphQL glance per 100 pull requests, full reads (GraphQL) only
//            for the ones that changed.
// with nothing changing and with 10 % of heads changing per tick, per tick and per hour at the
// 2-minute interval, beside the installation budget (5,000 requests an hour). Then, at 1,000 Tasks
// with a simulated 100 ms round trip: the tick's duration, and the webhook acknowledgement p99
// while ticks run against without. A report, not a test: it exits 0 unless the benchmark broke.
// Options: --sizes=100,1000,5000 --ticks=3 --before-sizes=100,1000 --latency=100 --ack-seconds=20 --rounds=4
// --rate=20 --skip-latency --modes=before,rest,bulk --latency-modes=bulk,rest
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Insertable } from 'kysely';
import { Worker } from 'node:worker_threads';
import type { FakeSpend } from '../test/support/fake-github/server.js';
import type { FakeOp } from './poll-fake-github.js';
import { FakeClock, BOT_LOGIN } from '../test/support/github-harness.js';
import { startHarness, REPO, SECRET, type Harness } from '../test/support/harness.js';
import { checkRunPayload, delivery, post } from '../test/support/deliveries.js';
import { createGitHub } from '../src/github/client.js';
import type { Ledger } from '../src/app/ledger-port.js';
import type { Database } from '../src/ledger/schema.js';

const argv = process.argv.slice(2);
const opt = (name: string, d: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
const list = (name: string, d: string) => opt(name, d).split(',').filter(Boolean).map(Number);
const SIZES = list('sizes', '100,1000,5000');
const BEFORE_SIZES = new Set(list('before-sizes', '100,1000'));
const TICKS = Number(opt('ticks', '3'));
const LATENCY_MS = Number(opt('latency', '100'));
const ACK_SECONDS = Number(opt('ack-seconds', '20'));
const ROUNDS = Number(opt('rounds', '4'));
const RATE = Number(opt('rate', '20'));
const SKIP_LATENCY = argv.includes('--skip-latency');
const MODES = opt('modes', 'before,rest,bulk').split(',').filter(Boolean) as Mode[];
const LATENCY_MODES = opt('latency-modes', 'bulk,rest').split(',').filter(Boolean) as Mode[];

const BUDGET = 5000; // requests (and, separately, GraphQL points) an installation may spend an hour
const TICKS_PER_HOUR = 3600 / 120;
const CHURN = 0.1;
const REPOSITORY = `${REPO.owner}/${REPO.name}`;

type Mode = 'before' | 'rest' | 'bulk';

/** The fake GitHub on its own thread (poll-fake-github.ts), driven by messages. */
interface FakeThread {
  url: string;
  call<T = unknown>(msg: FakeOp): Promise<T>;
  close(): Promise<void>;
}

async function fakeThread(latencyMs: number): Promise<FakeThread> {
  // tsx's loader is registered inside the worker first, then the TypeScript module is imported.
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./poll-fake-github.ts', import.meta.url).href)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { latencyMs } });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', (m: { ready: string }) => resolve(m.ready));
    worker.once('error', reject);
  });
  let next = 0;
  const waiting = new Map<number, (v: unknown) => void>();
  worker.on('message', (m: { id?: number; result?: unknown }) => {
    if (m.id === undefined) return;
    waiting.get(m.id)?.(m.result);
    waiting.delete(m.id);
  });
  const call = <T>(msg: FakeOp) =>
    new Promise<T>((resolve) => {
      const id = next++;
      waiting.set(id, resolve as (v: unknown) => void);
      worker.postMessage({ id, msg });
    });
  return {
    url,
    call,
    async close() {
      await call({ op: 'close' });
      await worker.terminate();
    },
  };
}

interface World {
  h: Harness;
  fake: FakeThread;
  clock: FakeClock;
  numbers: number[];
  close(): Promise<void>;
}

const hex = (n: number, salt: string) => (salt + n.toString(16)).padStart(40, '0').slice(-40);

async function world(n: number, mode: Mode, latencyMs = 0): Promise<World> {
  const fake = await fakeThread(latencyMs);
  const clock = new FakeClock();
  const token = await fake.call<string>({ op: 'addUserToken', login: BOT_LOGIN });
  let ledger: Ledger | null = null;
  const github = createGitHub({
    apiUrl: fake.url,
    auth: { kind: 'token', token },
    retry: { backoffUnitMs: 10 },
    bulkReads: mode === 'bulk',
    // The server's wiring keeps ETags in its ledger; the fixloop below is built around this client.
    ...(mode === 'before'
      ? { etagCacheSize: 500, protectionTtlSeconds: 0 }
      : { etags: { getEtag: (k) => ledger!.getEtag(k), putEtag: (k, e, v) => ledger!.putEtag(k, e, v) } }),
  });
  const h = await startHarness('sqlite', { adapters: { github, clock, startPoll: false } });
  ledger = h.app.ledger;
  const at = clock.now().toISOString();
  const numbers = Array.from({ length: n }, (_, i) => 1000 + i);
  const rows: Insertable<Database['tasks']>[] = numbers.map((pr) => ({
    work: 'shop',
    repository: REPOSITORY,
    pr_number: pr,
    branch: `agent/fix-${pr}`,
    state: 'open',
    pr_state: 'open',
    branch_state: 'present',
    is_fork: 0,
    ci_head_sha: null,
    ci_head_seen_at: null,
    ci_state: 'unknown',
    notice_at: null,
    resume_ref: null,
    created_at: at,
    updated_at: at,
  }));
  const k = h.app.db.kysely;
  await k.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 500)
      await trx
        .insertInto('tasks')
        .values(rows.slice(i, i + 500))
        .execute();
  });
  await fake.call({ op: 'seed', repository: REPOSITORY, prs: numbers, heads: numbers.map((pr) => hex(pr, 'a')) });
  return {
    h,
    fake,
    clock,
    numbers,
    async close() {
      await h.close();
      await fake.close();
    },
  };
}

/** 10 % of the pull requests get a new head, its check still running. */
async function churn(w: World, tick: number): Promise<void> {
  const count = Math.round(w.numbers.length * CHURN);
  const prs = Array.from({ length: count }, (_, i) => w.numbers[(tick * count + i) % w.numbers.length]!);
  await w.fake.call({
    op: 'setHeads',
    repository: REPOSITORY,
    prs,
    heads: prs.map((pr) => hex(pr * 1000 + tick, 'c')),
  });
}

interface TickCost {
  rest: number;
  graphql: number;
  seconds: number;
}

async function tick(w: World): Promise<TickCost> {
  w.clock.advance(120_000);
  await w.fake.call({ op: 'setNow', iso: w.clock.now().toISOString() });
  await w.fake.call({ op: 'resetSpend' });
  const started = performance.now();
  await w.h.app.poller!.tick();
  await w.h.app.settle();
  const seconds = (performance.now() - started) / 1000;
  const spend = await w.fake.call<FakeSpend>({ op: 'spend' });
  return { rest: spend.rest, graphql: spend.graphql, seconds };
}

const mean = (xs: TickCost[]): TickCost => ({
  rest: xs.reduce((s, x) => s + x.rest, 0) / xs.length,
  graphql: xs.reduce((s, x) => s + x.graphql, 0) / xs.length,
  seconds: xs.reduce((s, x) => s + x.seconds, 0) / xs.length,
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

interface Row {
  size: number;
  mode: Mode;
  scenario: 'first tick' | 'nothing changes' | '10 % churn';
  cost: TickCost;
}

async function measure(size: number, mode: Mode): Promise<Row[]> {
  const w = await world(size, mode);
  try {
    const first = await tick(w);
    const quiet: TickCost[] = [];
    for (let t = 0; t < TICKS; t++) quiet.push(await tick(w));
    const churned: TickCost[] = [];
    for (let t = 0; t < TICKS; t++) {
      await churn(w, t);
      churned.push(await tick(w));
    }
    return [
      { size, mode, scenario: 'first tick', cost: first },
      { size, mode, scenario: 'nothing changes', cost: mean(quiet) },
      { size, mode, scenario: '10 % churn', cost: mean(churned) },
    ];
  } finally {
    await w.close();
  }
}

function printCosts(rows: Row[]): void {
  const head = [
    'Tasks',
    'poll',
    'scenario',
    'REST/tick',
    'GraphQL pts/tick',
    'REST/h',
    'GraphQL pts/h',
    'of 5,000/h',
    'tick s',
  ];
  const lines = rows.map((r) => {
    const restH = r.cost.rest * TICKS_PER_HOUR;
    const gqlH = r.cost.graphql * TICKS_PER_HOUR;
    const share = r.scenario === 'first tick' ? '—' : `${(((restH + gqlH) / BUDGET) * 100).toFixed(1)} %`;
    return [
      r.size.toLocaleString('en'),
      r.mode,
      r.scenario,
      r.cost.rest.toFixed(0),
      r.cost.graphql.toFixed(0),
      r.scenario === 'first tick' ? '—' : restH.toLocaleString('en', { maximumFractionDigits: 0 }),
      r.scenario === 'first tick' ? '—' : gqlH.toLocaleString('en', { maximumFractionDigits: 0 }),
      share,
      r.cost.seconds.toFixed(2),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  console.log(fmt(head));
  for (const l of lines) console.log(fmt(l));
  console.log(
    '"of 5,000/h" adds REST requests and GraphQL points against one 5,000 budget (GitHub keeps them in two',
    'separate 5,000 windows, so this overstates the share). Targets at 5,000 Tasks: ≤ 50 % nothing changing,',
    '≤ 100 % at 10 % churn.',
  );
}

/** Signed check runs at RATE a second for `seconds`; the acknowledgement time of each (ms). */
async function acks(w: World, seconds: number, startId: number): Promise<number[]> {
  const times: number[] = [];
  const stop = performance.now() + seconds * 1000;
  const inflight: Promise<void>[] = [];
  let i = startId;
  while (performance.now() < stop) {
    const id = i++;
    const pr = w.numbers[id % w.numbers.length]!;
    const head = hex(id, 'e');
    const d = delivery(
      'check_run',
      checkRunPayload({
        repo: REPO,
        sha: head,
        id,
        name: 'lint',
        conclusion: 'success',
        pr: { number: pr, headSha: head },
      }),
    );
    const t = performance.now();
    inflight.push(
      post(w.h.url, d, SECRET).then((res) => {
        if (res.status >= 300) throw new Error(`webhook answered ${res.status}`);
        times.push(performance.now() - t);
      }),
    );
    await new Promise((r) => setTimeout(r, 1000 / RATE));
  }
  await Promise.all(inflight);
  return times;
}

async function latencyPhase(): Promise<void> {
  const size = 1000;
  console.log(`\n## ${size.toLocaleString('en')} Tasks, ${LATENCY_MS} ms simulated round trip to GitHub (loopback)\n`);
  for (const mode of LATENCY_MODES) {
    const w = await world(size, mode, LATENCY_MS);
    try {
      const first = await tick(w);
      const quiet = await tick(w);
      await churn(w, 0);
      const churned = await tick(w);
      console.log(
        `${mode.padEnd(4)}: first tick ${first.seconds.toFixed(1)} s, nothing changing ${quiet.seconds.toFixed(1)} s, ` +
          `10 % churn ${churned.seconds.toFixed(1)} s (target < 30 s)`,
      );
      if (mode !== 'bulk') continue;
      // Webhook acknowledgements, alone and while ticks (with churn) run back to back, in ROUNDS
      // interleaved windows so that the machine's own noise falls on both alike.
      await acks(w, 2, 1); // warm-up
      const alone: number[] = [];
      const during: number[] = [];
      const delay = monitorEventLoopDelay({ resolution: 1 });
      let ticks = 0;
      for (let round = 0; round < ROUNDS; round++) {
        alone.push(...(await acks(w, ACK_SECONDS / ROUNDS, 100_000 * (round + 1))));
        let ticking = true;
        const loop = (async () => {
          while (ticking) {
            await churn(w, 10 + ticks);
            await tick(w);
            ticks++;
          }
        })();
        delay.enable();
        during.push(...(await acks(w, ACK_SECONDS / ROUNDS, 100_000 * (round + 1) + 50_000)));
        delay.disable();
        ticking = false;
        await loop;
      }
      const p99a = pct(alone, 99);
      const p99d = pct(during, 99);
      console.log(
        `webhook ack p99: ${p99a.toFixed(1)} ms alone (${alone.length} deliveries), ${p99d.toFixed(1)} ms during ` +
          `${ticks} ticks (${during.length} deliveries): ${(p99d / p99a).toFixed(2)}× (target ≤ 1.5×); ` +
          `p50 ${pct(alone, 50).toFixed(1)} → ${pct(during, 50).toFixed(1)} ms; event-loop delay p99 while ticking ` +
          `${(delay.percentile(99) / 1e6).toFixed(1)} ms`,
      );
    } finally {
      await w.close();
    }
  }
}

async function main(): Promise<void> {
  console.log(`# bench:poll — ${new Date().toISOString()}, node ${process.version}, SQLite\n`);
  console.log(`Every Task pending; interval 2 min (${TICKS_PER_HOUR} ticks an hour); means of ${TICKS} ticks.\n`);
  const rows: Row[] = [];
  for (const size of SIZES) {
    for (const mode of MODES) {
      if (mode === 'before' && !BEFORE_SIZES.has(size)) continue;
      const measured = await measure(size, mode);
      rows.push(...measured);
      const done = measured.map(
        (r) => `${r.scenario} ${r.cost.rest.toFixed(0)} REST + ${r.cost.graphql.toFixed(0)} pts`,
      );
      console.error(`measured ${size} Tasks, ${mode}: ${done.join('; ')}`);
    }
  }
  printCosts(rows);
  const ratio = (size: number, scenario: Row['scenario'], mode: Mode) => {
    const r = rows.find((x) => x.size === size && x.scenario === scenario && x.mode === mode);
    const b = rows.find((x) => x.size === size && x.scenario === scenario && x.mode === 'before');
    if (!r || !b) return null;
    const total = (c: TickCost) => c.rest + c.graphql;
    return total(b.cost) / Math.max(1, total(r.cost));
  };
  for (const size of SIZES) {
    for (const scenario of ['nothing changes', '10 % churn'] as const) {
      const x = ratio(size, scenario, 'bulk');
      if (x !== null)
        console.log(`${size.toLocaleString('en')} Tasks, ${scenario}: bulk costs 1/${x.toFixed(0)} of before`);
    }
  }
  if (!SKIP_LATENCY) await latencyPhase();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
