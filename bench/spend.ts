// `npm run bench:spend`: model runs spent and fixes reached by fixloop and by three naive resume
// policies over the corpus of pull-request lifecycles in bench/spend-corpus.ts.
//
//   npm run bench:spend [-- --budgets=2,5] [--only=matrix-storm,flaky,…]
//
// fixloop runs for real (bench/spend-fixloop.ts: fresh SQLite, fake GitHub, fake clock, signed
// webhooks, the poll ticked), once per budget (TASK_CI_AUTO_RESUME_MAX_ATTEMPTS; 2 is the default);
// the naive policies are pure simulators over the same stream (bench/naive-policies.ts). The oracle
// is the fewest model runs that reach the fix with the lifecycle's agent; the informed minimum the
// fewest a policy could spend knowing at each decision only what had happened (issue 17). fixloop's
// target: the informed minimum's runs and the oracle's fixes, PASS or FAIL per lifecycle and budget.
// `--only` takes ids or id prefixes (`--only=matrix-unchanged` runs all five orders). Deterministic:
// the same table every run. A report, not a test: it exits 0 unless the benchmark itself broke.
import { CORPUS, type Lifecycle } from './spend-corpus.js';
import { NAIVE_POLICIES, simulate } from './naive-policies.js';
import { runFixloop, type FixloopResult } from './spend-fixloop.js';

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const BUDGETS = (opt('budgets') ?? '2,5').split(',').map((s) => Number(s.trim()));
const ONLY = opt('only')?.split(',');
const corpus = ONLY ? CORPUS.filter((lc) => ONLY.some((o) => lc.id === o || lc.id.startsWith(`${o}-`))) : CORPUS;
if (corpus.length === 0) throw new Error(`--only matched no lifecycle (ids: ${CORPUS.map((lc) => lc.id).join(', ')})`);

interface Cell {
  runs: number;
  fixes: number;
  falseFixes: number;
}
interface Column {
  title: string;
  cells: Cell[];
  extra?: FixloopResult[];
}

const started = Date.now();
const columns: Column[] = [];
for (const budget of BUDGETS) {
  const extra: FixloopResult[] = [];
  for (const lc of corpus) extra.push(await runFixloop(lc, { budget }));
  columns.push({ title: `fixloop (budget ${budget})`, cells: extra, extra });
}
for (const policy of NAIVE_POLICIES)
  columns.push({ title: policy.title, cells: corpus.map((lc) => simulate(lc, policy)) });
const elapsed = Date.now() - started;

// ---------------------------------------------------------------- the table
const sum = (cells: Cell[]): Cell =>
  cells.reduce(
    (a, c) => ({ runs: a.runs + c.runs, fixes: a.fixes + c.fixes, falseFixes: a.falseFixes + c.falseFixes }),
    { runs: 0, fixes: 0, falseFixes: 0 },
  );
const W = 'runs fix ✗fix'.length;
const cell = (c: Cell) =>
  `${String(c.runs).padStart(4)} ${String(c.fixes).padStart(3)} ${(c.falseFixes ? String(c.falseFixes) : '·').padStart(4)}`;
const oracleCell = (runs: number, fixes: number) => `${String(runs).padStart(4)} ${String(fixes).padStart(3)}     `;
const NAME = Math.max(...corpus.map((lc) => lc.title.length), 'runs above the informed minimum'.length) + 1;
const center = (s: string) => {
  const left = Math.floor((W - s.length) / 2);
  return ' '.repeat(Math.max(0, left)) + s + ' '.repeat(Math.max(0, W - s.length - left));
};
/** A column title on two lines. */
const twoLines = (t: string): [string, string] => {
  if (t.length <= W) return ['', t];
  const i = t.lastIndexOf(' ', W);
  return [t.slice(0, i), t.slice(i + 1)];
};
const titles = [
  ['', 'oracle'] as [string, string],
  ['informed', 'minimum'] as [string, string],
  ...columns.map((c) => twoLines(c.title)),
];
const row = (name: string, cells: string[]) => name.padEnd(NAME) + cells.map((c) => ` │ ${c}`).join('');
const rule = '─'.repeat(NAME) + titles.map(() => '─┼─' + '─'.repeat(W)).join('');
const oracleRuns = corpus.reduce((a, lc) => a + lc.oracle, 0);
const informedRuns = corpus.reduce((a, lc) => a + lc.informed, 0);
const fixloopColumns = columns.filter((c): c is Column & { extra: FixloopResult[] } => c.extra !== undefined);
/**
 * fixloop's target on a lifecycle: exactly the informed minimum's runs, and every fix the oracle
 * reaches. The budget caps every policy alike: past it, no run is anyone's to spend.
 */
const passes = (lc: Lifecycle, r: FixloopResult) => r.runs === Math.min(lc.informed, r.budget) && r.fixes >= lc.fixes;
const verdicts = (i: number) =>
  fixloopColumns.map((c) => (passes(corpus[i]!, c.extra[i]!) ? 'PASS' : 'FAIL')).join(' ');
const table = [
  row(
    '',
    titles.map(([a]) => center(a)),
  ),
  row(
    '',
    titles.map(([, b]) => center(b)),
  ),
  row(
    'lifecycle',
    titles.map(() => 'runs fix ✗fix'),
  ) + ` │ target (budget ${BUDGETS.join(', ')})`,
  rule + '─┼─' + '─'.repeat(14),
  ...corpus.map(
    (lc, i) =>
      row(lc.title, [
        oracleCell(lc.oracle, lc.fixes),
        oracleCell(lc.informed, lc.fixes),
        ...columns.map((c) => cell(c.cells[i]!)),
      ]) + ` │ ${verdicts(i)}`,
  ),
  rule + '─┼─' + '─'.repeat(14),
  row('total', [
    oracleCell(
      oracleRuns,
      corpus.reduce((a, lc) => a + lc.fixes, 0),
    ),
    oracleCell(
      informedRuns,
      corpus.reduce((a, lc) => a + lc.fixes, 0),
    ),
    ...columns.map((c) => cell(sum(c.cells))),
  ]),
  row('runs above the oracle', [
    ''.padEnd(W),
    String(informedRuns - oracleRuns)
      .padStart(4)
      .padEnd(W),
    ...columns.map((c) =>
      String(sum(c.cells).runs - oracleRuns)
        .padStart(4)
        .padEnd(W),
    ),
  ]),
  row('runs above the informed minimum', [
    ''.padEnd(W),
    ''.padEnd(W),
    ...columns.map((c) =>
      String(sum(c.cells).runs - informedRuns)
        .padStart(4)
        .padEnd(W),
    ),
  ]),
];

const counted = (r: Record<string, number>) =>
  Object.entries(r)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
const out: string[] = [
  `fixloop spend benchmark — ${corpus.length} pull-request lifecycles, model runs spent and fixes reached per policy`,
  'runs = model runs started · fix = real fixes reached · ✗fix = false fixes (green by editing what judges the code, not handed to a person)',
  '',
  ...table,
  '',
  ...fixloopColumns.map((c) => {
    const failed = corpus.filter((lc, i) => !passes(lc, c.extra[i]!));
    const noticed = corpus.filter((lc, i) => lc.notice && !lc.notice.reason.test(c.extra[i]!.stop ?? ''));
    const off = (sign: 1 | -1) =>
      corpus.flatMap((lc, i) => {
        const r = c.extra[i]!;
        const d = sign * (r.runs - Math.min(lc.informed, r.budget));
        return d > 0 ? [{ id: lc.id, d }] : [];
      });
    const told = (xs: Array<{ id: string; d: number }>, what: string) =>
      `${xs.reduce((a, x) => a + x.d, 0)} runs ${what}${xs.length ? ` (${xs.map((x) => x.id).join(', ')})` : ''}`;
    const missed = corpus.filter((lc, i) => c.extra[i]!.fixes < lc.fixes);
    return (
      `${c.title}: ${corpus.length - failed.length} of ${corpus.length} lifecycles PASS` +
      `; ${told(off(1), 'over the target')}; ${told(off(-1), 'under it')}` +
      `; ${missed.length ? `fixes missed on ${missed.map((lc) => lc.id).join(', ')}` : 'no fix missed'}` +
      (noticed.length ? `; notice missing on ${noticed.map((lc) => lc.id).join(', ')}` : '')
    );
  }),
  'PASS = exactly the informed minimum of runs (or the budget, when that is smaller) and every fix the oracle reaches',
  '',
  'informed minimum per lifecycle: why',
  ...corpus.map((lc) => `  ${lc.title}: ${lc.informed} — ${lc.informedWhy}`),
  '',
  'fixloop per lifecycle: the notice it filed (why the loop stopped), attempts in its ledger, re-runs asked of GitHub, deliveries posted, refusals in its decision log',
];
for (const [i, lc] of corpus.entries()) {
  out.push(`  ${lc.title} — expected: ${lc.fixloop}`);
  for (const c of fixloopColumns) {
    const r = c.extra[i]!;
    const notice = lc.notice ? ` (expected ${lc.notice.what}: ${lc.notice.reason.test(r.stop ?? '') ? '✓' : '✗'})` : '';
    out.push(
      `      budget ${r.budget}: ${passes(lc, r) ? 'PASS' : 'FAIL'} · ${r.stop ?? 'no notice'}${notice} · ${r.attempts} attempt${r.attempts === 1 ? '' : 's'} · ${r.reruns} re-run${r.reruns === 1 ? '' : 's'} · ${r.deliveries} deliveries · refused: ${counted(r.refusals) || 'none'}`,
    );
  }
}
const interval = fixloopColumns[0]?.extra[0]?.pollIntervalMs;
out.push(
  '',
  'every red delivery = resume on each red check run, check suite, workflow run or change request, redeliveries included',
  'one per red push   = the first red delivery of each commit resumes; no other guard',
  'per-check budget 3 = each failing check run (or "review") resumes on at most 3 distinct commits, once per commit',
  `fixloop            = createFixloop on a fresh SQLite database, fake GitHub, fake clock, signed webhooks${interval ? `, the poll ticked every ${interval / 1000} s of fake time` : ''}`,
  `ran in ${(elapsed / 1000).toFixed(1)} s`,
);
process.stdout.write(out.join('\n') + '\n');
