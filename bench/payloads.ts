// Deterministic delivery lists for the benchmark, built from the test suite's builders
// (test/support/deliveries.ts, which clone GitHub's own example payloads). Large lists are made
// from templates: a payload is built once with marker values and the markers are substituted as
// text, which gives byte-for-byte what JSON.stringify would give for the real values but costs a
// string join instead of a structuredClone of an 11 KB example per delivery.
import { createHmac } from 'node:crypto';
import { checkRunPayload, checkSuitePayload, workflowRunPayload, type RepoSpec } from '../test/support/deliveries.js';
import { matrixStorm } from '../test/support/storm.js';

export const BENCH_REPO: RepoSpec = { owner: 'acme', name: 'shop', id: 4242 };
export const BENCH_PR = 12;
export const BENCH_BRANCH = 'agent/fix';

export interface BenchDelivery {
  event: string;
  id: string;
  body: string;
  /** What fixloop's identity for it would be (used by the bare PostgreSQL baseline). */
  identity: string;
}

export type PayloadSpec =
  /** Every delivery a distinct completed red check_run of `bytes` bytes on one head commit. */
  | { kind: 'allRed'; count: number; bytes?: number; seed?: number }
  /** Pushes of a 12-job matrix (queued, in_progress, completed per job, suite, workflow run), `redeliveryRatio` of them repeats. */
  | { kind: 'stormMix'; count: number; redeliveryRatio?: number; seed?: number }
  /** test/support/storm.ts matrixStorm: 76 deliveries of one red push. */
  | { kind: 'matrixStorm'; seed?: number; sha?: string };

const SHA_MARK = 'feedfacefeedfacefeedfacefeedfacefeedface';
const ID_MARK = 987654321987;

function shaOf(n: number): string {
  return n.toString(16).padStart(8, '0').repeat(5);
}

/** Build once with markers, then fill: `fill(sha, id)` equals JSON.stringify(build(sha, id)). */
function template(build: (sha: string, id: number) => unknown): (sha: string, id: number) => string {
  const text = JSON.stringify(build(SHA_MARK, ID_MARK));
  const bySha = text.split(SHA_MARK).map((part) => part.split(String(ID_MARK)));
  return (sha, id) => bySha.map((parts) => parts.join(String(id))).join(sha);
}

const FAILURE_LINES = [
  'FAIL src/cart/checkout.test.ts > applies the discount before tax',
  'AssertionError: expected 1042.5 to be 1038.25 // Object.is equality',
  ' ❯ src/cart/checkout.test.ts:88:31',
  'FAIL src/cart/totals.test.ts > rounds half-cents the way the ledger does',
  'Error: Timed out in 5000ms at /tmp/vitest-8a3f9c/worker-3.js:112:9',
];

/** A failure summary long enough to bring the whole check_run body to `bytes`. */
function padTo(build: (summary: string) => string, bytes: number): string {
  const base = build('').length;
  let summary = '';
  for (let i = 0; summary.length < bytes - base; i++)
    summary += `${FAILURE_LINES[i % FAILURE_LINES.length]} (case ${i})\n`;
  // JSON escapes \n as two bytes and the arrow as three: trim until it fits.
  let text = build(summary);
  while (Buffer.byteLength(text) > bytes && summary.length > 0) {
    summary = summary.slice(0, Math.max(0, summary.length - Math.max(1, Buffer.byteLength(text) - bytes)));
    text = build(summary);
  }
  return summary;
}

function allRed(count: number, bytes: number, seed: number): BenchDelivery[] {
  const sha = shaOf(0xa11ed000 + seed);
  const pr = { number: BENCH_PR, headSha: sha };
  const build = (summary: string) => (s: string, id: number) =>
    checkRunPayload({
      repo: BENCH_REPO,
      sha: s,
      id,
      name: `test (shard ${id})`,
      status: 'completed',
      conclusion: 'failure',
      pr: { ...pr, headSha: s },
      output: summary,
      completedAt: '2026-01-05T10:00:00Z',
    });
  const summary = padTo((s) => JSON.stringify(build(s)(sha, 100_000_000_000)), bytes);
  const fill = template(build(summary));
  const out: BenchDelivery[] = [];
  for (let i = 0; i < count; i++) {
    const id = 100_000_000_000 + seed * 10_000_000 + i;
    out.push({
      event: 'check_run',
      id: `bench-red-${seed}-${i}`,
      body: fill(sha, id),
      identity: `check:acme/shop@${sha}:run:${id}:completed:failure`,
    });
  }
  return out;
}

/** Small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function stormMix(count: number, ratio: number, seed: number): BenchDelivery[] {
  const repo = BENCH_REPO;
  // One template per delivery of a push; a push is (sha, base id) filled in.
  const perPush: Array<{
    event: string;
    fill: (sha: string, id: number) => string;
    offset: number;
    identity: (sha: string, id: number) => string;
  }> = [];
  for (let job = 0; job < 12; job++) {
    const name = `test (node ${18 + (job % 3)}, shard ${job})`;
    const conclusion = job % 4 === 0 ? 'failure' : 'success';
    for (const status of ['queued', 'in_progress', 'completed'] as const) {
      const fill = template((sha, id) =>
        checkRunPayload({
          repo,
          sha,
          id,
          name,
          status,
          ...(status === 'completed'
            ? { conclusion, output: `shard ${job} failed: expected 1 to be 2`, completedAt: '2026-01-05T10:00:00Z' }
            : {}),
          pr: { number: BENCH_PR, headSha: sha },
        }),
      );
      perPush.push({
        event: 'check_run',
        fill,
        offset: job,
        identity: (sha, id) =>
          `check:acme/shop@${sha}:run:${id}:${status}${status === 'completed' ? `:${conclusion}` : ''}`,
      });
    }
  }
  // Jobs finish in a different order than they were queued: queued ×12, in_progress ×12, completed ×12.
  const ordered = [0, 1, 2].flatMap((phase) => perPush.filter((_, i) => i % 3 === phase));
  ordered.push({
    event: 'check_suite',
    fill: template((sha, id) =>
      checkSuitePayload({
        repo,
        sha,
        id,
        conclusion: 'failure',
        pr: { number: BENCH_PR, headSha: sha },
        updatedAt: '2026-01-05T10:00:00Z',
      }),
    ),
    offset: 900,
    identity: (sha, id) => `check:acme/shop@${sha}:suite:${id}:completed:failure`,
  });
  ordered.push({
    event: 'workflow_run',
    fill: template((sha, id) =>
      workflowRunPayload({
        repo,
        sha,
        id,
        conclusion: 'failure',
        pr: { number: BENCH_PR, headSha: sha },
        updatedAt: '2026-01-05T10:00:00Z',
      }),
    ),
    offset: 901,
    identity: (sha, id) => `check:acme/shop@${sha}:workflow:${id}#1:completed:failure`,
  });

  const rnd = prng(seed * 7919 + 1);
  const out: BenchDelivery[] = [];
  const distinct: BenchDelivery[] = [];
  let n = 0;
  for (let push = 0; out.length < count; push++) {
    const sha = shaOf(0x5000_0000 + seed * 100_000 + push);
    const base = (seed * 100_000 + push) * 1000;
    for (const t of ordered) {
      if (out.length >= count) break;
      const d: BenchDelivery = {
        event: t.event,
        id: `bench-mix-${seed}-${n++}`,
        body: t.fill(sha, base + t.offset),
        identity: t.identity(sha, base + t.offset),
      };
      distinct.push(d);
      out.push(d);
      // `ratio` of all deliveries are byte-identical repeats (same delivery id) of a recent one.
      while (out.length < count && rnd() < ratio) {
        const window = Math.min(distinct.length, 200);
        out.push({ ...distinct[distinct.length - 1 - Math.floor(rnd() * window)]! });
      }
    }
  }
  return out;
}

export function buildDeliveries(spec: PayloadSpec): BenchDelivery[] {
  switch (spec.kind) {
    case 'allRed':
      return allRed(spec.count, spec.bytes ?? 12 * 1024, spec.seed ?? 1);
    case 'stormMix':
      return stormMix(spec.count, spec.redeliveryRatio ?? 0.2, spec.seed ?? 1);
    case 'matrixStorm': {
      const sha = spec.sha ?? shaOf(0xc0ffee00 + (spec.seed ?? 1));
      return matrixStorm(BENCH_REPO, BENCH_PR, sha, spec.seed ?? 1).map((d) => ({ ...d, identity: '' }));
    }
  }
}

/** X-Hub-Signature-256 for a body (the same HMAC `sign` from @octokit/webhooks-methods computes). */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
