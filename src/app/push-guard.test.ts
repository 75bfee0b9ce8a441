// SPEC K3, K4: the push guards over an in-memory GitHub (compare only) and an in-memory agent ledger.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkAgentPush,
  createPushGuard,
  TRUNCATED_DETAIL,
  unifiedDiff,
  type PushGuardDeps,
  type PushStopReason,
} from './push-guard.js';
import { ProviderError, type ComparedFile, type Comparison, type ProviderPort } from './provider-port.js';
import type { AgentLedger, AttemptLife } from './agent-port.js';
import type { Logger } from './ports.js';
import type { PathPolicy } from '../core/path-policy.js';
import { DEFAULT_PATH_POLICY } from '../wiring/path-policy.js';
import { diffHash } from '../core/thrash.js';
import type { Task } from '../core/types.js';
import { taskFixture } from '../../test/support/fixtures.js';

const AT = '2026-11-30T08:00:00.000Z';
const sha = (c: string) => c.repeat(40).slice(0, 40);
const [H1, H2, H3, H4] = ['1', '2', '3', '4'].map(sha) as [string, string, string, string];

function task(over: Partial<Task> = {}): Task {
  return taskFixture({ pullRequest: 21, branch: 'agent/a', createdAt: AT, ...over });
}

/** An in-memory GitHub answering only compare: `base...head` → files (or an error to throw). */
class FakeCompare implements Pick<ProviderPort, 'compareCommits'> {
  readonly calls: string[] = [];
  readonly answers = new Map<string, Comparison | Error>();
  set(base: string, head: string, files: ComparedFile[], truncated = false): this {
    this.answers.set(`${base}...${head}`, { files, truncated });
    return this;
  }
  fail(base: string, head: string, err: Error): this {
    this.answers.set(`${base}...${head}`, err);
    return this;
  }
  async compareCommits(repository: string, base: string, head: string): Promise<Comparison> {
    this.calls.push(`${repository} ${base.slice(0, 1)}...${head.slice(0, 1)}`);
    const answer = this.answers.get(`${base}...${head}`);
    if (answer === undefined) throw new ProviderError(404, `GET compare ${base}...${head}: 404 Not Found`, false);
    if (answer instanceof Error) throw answer;
    return structuredClone(answer);
  }
}

/** An in-memory agent ledger: attempt lives by id, and the diff hashes written. */
class FakeAgent implements Pick<AgentLedger, 'lives' | 'setDiffHash'> {
  readonly rows: AttemptLife[] = [];
  readonly writes: Array<{ attemptId: number; hash: string }> = [];
  failLives = false;
  add(headSha: string | null, diffHash: string | null = null): AttemptLife {
    const life: AttemptLife = {
      attemptId: this.rows.length + 1,
      taskId: 7,
      state: 'queued',
      outcome: null,
      outcomeReason: null,
      outcomeAt: null,
      actionTakenAt: null,
      baseline: null,
      diffHash,
      retryOf: null,
      headSha,
      createdAt: AT,
    };
    this.rows.push(life);
    return life;
  }
  async lives(taskId: number): Promise<AttemptLife[]> {
    if (this.failLives) throw new Error('database is locked');
    return this.rows
      .filter((r) => r.taskId === taskId)
      .map((r) => ({ ...r }))
      .reverse(); // order is the guard's job
  }
  async setDiffHash(attemptId: number, hash: string): Promise<void> {
    this.writes.push({ attemptId, hash });
    this.rows.find((r) => r.attemptId === attemptId)!.diffHash = hash;
  }
  hashOf(attemptId: number): string | null {
    return this.rows.find((r) => r.attemptId === attemptId)!.diffHash;
  }
}

interface Setup {
  github: FakeCompare;
  agent: FakeAgent;
  stops: Array<{ taskId: number; reason: PushStopReason; detail: string }>;
  policies: string[];
  deps: PushGuardDeps;
}

function setup(opts: { policy?: PathPolicy; stopFails?: boolean } = {}): Setup {
  const github = new FakeCompare();
  const agent = new FakeAgent();
  const stops: Setup['stops'] = [];
  const policies: string[] = [];
  const deps: PushGuardDeps = {
    host: github,
    agent,
    policyFor: (repository) => {
      policies.push(repository);
      return opts.policy ?? DEFAULT_PATH_POLICY;
    },
    stop: async (t, reason, detail) => {
      if (opts.stopFails) throw new Error('notice could not be filed');
      stops.push({ taskId: t.id, reason, detail });
    },
  };
  return { github, agent, stops, policies, deps };
}

// Three states of one line of src/price.ts, and the diffs between them (what GitHub's compare shows).
const line = (from: string, to: string, at = 12): ComparedFile => ({
  path: 'src/price.ts',
  status: 'modified',
  patch: `@@ -${at},3 +${at},3 @@ export function price(cart: Cart) {\n   const total = sum(cart);\n-  return ${from};\n+  return ${to};\n }`,
  blobSha: null,
});
const X = (at?: number) => [line('total', 'round(total)', at)]; // base → state X
const Y = (at?: number) => [line('total', 'total.toFixed(2)', at)]; // base → state Y
const X_TO_Y = [line('round(total)', 'total.toFixed(2)')];
const Y_TO_X = [line('total.toFixed(2)', 'round(total)')];
const sourceFix: ComparedFile[] = [
  {
    path: 'src/price.ts',
    status: 'modified',
    patch:
      '@@ -1,2 +1,2 @@\n import { sum } from "./sum";\n-export const price = (c) => sum(c);\n+export const price = (c) => Math.round(sum(c));',
    blobSha: 'b1',
  },
  {
    path: 'src/price.test.ts',
    status: 'modified',
    patch: "@@ -9,0 +10,3 @@\n+test('rounds', () => {\n+  expect(price([1.4])).toBe(1);\n+});",
    blobSha: 'b2',
  },
];

describe('K3/K4: the push guard', () => {
  test('nothing to check: no attempt, no push yet, a loop already stopped, a parked Task', async () => {
    const s = setup();
    assert.deepEqual(await checkAgentPush(s.deps, task(), H2), { kind: 'skipped', why: 'no_attempt' });
    s.agent.add(null); // a review attempt on no known commit
    assert.deepEqual(await checkAgentPush(s.deps, task(), H2), { kind: 'skipped', why: 'no_attempt' });
    s.agent.add(H1);
    assert.deepEqual(
      await checkAgentPush(s.deps, task(), H1),
      { kind: 'skipped', why: 'no_new_push' },
      'the head is still the attempt’s own',
    );
    assert.deepEqual(await checkAgentPush(s.deps, task({ noticeAt: AT }), H2), {
      kind: 'skipped',
      why: 'loop_stopped',
    });
    assert.deepEqual(await checkAgentPush(s.deps, task({ parkedAt: AT }), H2), {
      kind: 'skipped',
      why: 'loop_stopped',
    });
    assert.deepEqual(s.github.calls, []);
    assert.deepEqual(s.stops, []);
  });

  test('K4: a normal source fix is allowed and its diff hash is stored on the attempt it answers', async () => {
    const s = setup();
    s.agent.add(H1);
    s.github.set(H1, H2, sourceFix);
    const r = await checkAgentPush(s.deps, task(), H2);
    assert.equal(r.kind, 'allowed');
    const hash = diffHash(unifiedDiff(sourceFix));
    assert.deepEqual(r.kind === 'allowed' && r.checked, [{ attemptId: 1, from: H1, to: H2, diffHash: hash }]);
    assert.equal(s.agent.hashOf(1), hash);
    assert.deepEqual(
      s.github.calls,
      ['acme/shop 1...2'],
      'the first push is also the diff from where the loop began: one read',
    );
    assert.deepEqual(s.policies, ['acme/shop']);
    assert.deepEqual(s.stops, []);

    // Read once: the next tick on the same head reads nothing.
    assert.deepEqual(await checkAgentPush(s.deps, task(), H2), { kind: 'skipped', why: 'no_new_push' });
    assert.equal(s.github.calls.length, 1);
  });

  test('K4: a push editing .github/workflows/ci.yml stops with forbidden_change, naming the file and why', async () => {
    const s = setup();
    s.agent.add(H1);
    s.github.set(H1, H2, [
      ...sourceFix,
      {
        path: '.github/workflows/ci.yml',
        status: 'modified',
        patch: '@@ -20,1 +20,1 @@\n-      - run: npm test\n+      - run: npm test || true',
        blobSha: 'c1',
      },
    ]);
    const r = await checkAgentPush(s.deps, task(), H2);
    assert.equal(r.kind, 'stopped');
    assert.equal(r.kind === 'stopped' && r.reason, 'forbidden_change');
    assert.deepEqual(r.kind === 'stopped' && r.offenses, [{ path: '.github/workflows/ci.yml', why: 'workflow' }]);
    assert.equal(s.stops.length, 1);
    assert.equal(s.stops[0]!.reason, 'forbidden_change');
    assert.match(s.stops[0]!.detail, /\.github\/workflows\/ci\.yml \(workflow\)/);
    assert.ok(s.agent.hashOf(1), 'the hash is recorded after the stop');
  });

  test('K4: a push adding it.skip( stops with forbidden_change (skip_marker, with the line)', async () => {
    const s = setup();
    s.agent.add(H1);
    s.github.set(H1, H2, [
      {
        path: 'src/cart.test.ts',
        status: 'modified',
        patch: "@@ -4,1 +4,1 @@\n-it('totals the cart', () => {\n+it.skip('totals the cart', () => {",
        blobSha: 'd1',
      },
    ]);
    const r = await checkAgentPush(s.deps, task(), H2);
    assert.equal(r.kind === 'stopped' && r.reason, 'forbidden_change');
    assert.deepEqual(r.kind === 'stopped' && r.offenses.map((o) => o.why), ['skip_marker']);
    assert.match(s.stops[0]!.detail, /src\/cart\.test\.ts \(skip_marker: "it\.skip\('totals the cart'/);
  });

  test('issue 36: a push past the Work’s bound stops with diff_too_large, measured since the loop began', async () => {
    const s = setup();
    const bounds: string[] = [];
    s.deps.boundFor = (repository) => (bounds.push(repository), { lines: 1000, files: 3 });
    const file = (n: number, added: number): ComparedFile => ({
      path: `src/m${n}.ts`,
      status: 'modified',
      patch: null,
      blobSha: `m${n}`,
      additions: added,
      deletions: 0,
    });
    s.agent.add(H1);
    s.agent.add(H2);
    // Push 1 (1 → 2) touches 2 files: within 3. Push 2 (2 → 3) touches 2 others: 4 since the loop began.
    s.github.set(H1, H2, [file(1, 5), file(2, 5)]);
    s.github.set(H2, H3, [file(3, 5), file(4, 5)]);
    s.github.set(H1, H3, [file(1, 5), file(2, 5), file(3, 5), file(4, 5)]);
    const r = await checkAgentPush(s.deps, task(), H3);
    assert.equal(r.kind === 'stopped' && r.reason, 'diff_too_large');
    assert.deepEqual(
      s.stops.map((x) => [x.reason, x.detail]),
      [
        [
          'diff_too_large',
          "the agent's changes since the loop began touch 4 files and 20 changed lines, over this Work's bound of 3 files or 1,000 changed lines",
        ],
      ],
    );
    assert.deepEqual(bounds, ['acme/shop', 'acme/shop']);
  });

  describe('issue 36: the base branch merged or rebased in is not the agent’s change', () => {
    const testGone: ComparedFile = {
      path: 'src/legacy.test.ts',
      status: 'removed',
      patch: "@@ -1,3 +0,0 @@\n-test('legacy', () => {\n-  expect(1).toBe(1);\n-});",
      blobSha: null,
    };
    const baseFile = (n: number): ComparedFile => ({
      path: `lib/b${n}.ts`,
      status: 'modified',
      patch: null,
      blobSha: `b${n}`,
      additions: 40,
      deletions: 0,
    });

    test('a test file the base deleted, merged in with the fix: allowed, read against the base', async () => {
      const s = setup();
      s.agent.add(H1);
      s.github.set(H1, H2, [...sourceFix, testGone]);
      s.github.set(H1, 'main', [testGone]);
      const r = await checkAgentPush(s.deps, task({ baseRef: 'main' }), H2);
      assert.equal(r.kind, 'allowed');
      assert.deepEqual(s.stops, []);
      assert.deepEqual(s.github.calls, ['acme/shop 1...2', 'acme/shop 1...m']);
    });

    test('the agent’s own test deletion beside the merge still stops it', async () => {
      const s = setup();
      s.agent.add(H1);
      const mine: ComparedFile = { ...testGone, path: 'src/cart.test.ts' };
      s.github.set(H1, H2, [...sourceFix, testGone, mine]);
      s.github.set(H1, 'main', [testGone]);
      const r = await checkAgentPush(s.deps, task({ baseRef: 'main' }), H2);
      assert.equal(r.kind === 'stopped' && r.reason, 'forbidden_change');
      assert.deepEqual(r.kind === 'stopped' && r.offenses.map((o) => o.path), ['src/cart.test.ts']);
    });

    test('a diff grown by the base’s own changes is within the bound', async () => {
      const s = setup();
      s.deps.boundFor = () => ({ lines: 1000, files: 3 });
      s.agent.add(H1);
      s.agent.add(H2);
      s.github.set(H1, H2, sourceFix);
      const merged = [...sourceFix, baseFile(1), baseFile(2), baseFile(3)];
      s.github.set(H2, H3, [baseFile(1), baseFile(2), baseFile(3)]);
      s.github.set(H1, H3, merged);
      s.github.set(H2, 'main', [baseFile(1), baseFile(2), baseFile(3)]);
      s.github.set(H1, 'main', [baseFile(1), baseFile(2), baseFile(3)]);
      const r = await checkAgentPush(s.deps, task({ baseRef: 'main' }), H3);
      assert.equal(r.kind, 'allowed', JSON.stringify(s.stops));
    });

    test('the base’s changes unreadable: the stop stands (fail closed); a plain push reads nothing more', async () => {
      const s = setup();
      s.agent.add(H1);
      s.github.set(H1, H2, [...sourceFix, testGone]);
      const r = await checkAgentPush(s.deps, task({ baseRef: 'main' }), H2);
      assert.equal(r.kind === 'stopped' && r.reason, 'forbidden_change');
      const plain = setup();
      plain.agent.add(H1);
      plain.github.set(H1, H2, sourceFix);
      assert.equal((await checkAgentPush(plain.deps, task({ baseRef: 'main' }), H2)).kind, 'allowed');
      assert.deepEqual(plain.github.calls, ['acme/shop 1...2'], 'an allowed push costs no read of the base');
    });
  });

  test('issue 36: without a bound for the Work the defaults hold, and a forbidden change is named first', async () => {
    const s = setup();
    const many = Array.from({ length: 60 }, (_, i): ComparedFile => ({
      path: `src/f${i}.ts`,
      status: 'modified',
      patch: '@@ -1 +1 @@\n-a\n+b',
      blobSha: null,
    }));
    s.agent.add(H1);
    s.github.set(H1, H2, many);
    assert.equal((await checkAgentPush(s.deps, task(), H2)).kind === 'stopped', true);
    assert.match(s.stops[0]!.detail, /touch 60 files and 120 changed lines, over this Work's bound of 50 files/);

    const t = setup();
    t.agent.add(H1);
    t.github.set(H1, H2, [
      ...many,
      { path: '.github/workflows/ci.yml', status: 'modified', patch: '@@ -1 +1 @@\n-a\n+b', blobSha: null },
    ]);
    await checkAgentPush(t.deps, task(), H2);
    assert.deepEqual(
      t.stops.map((x) => x.reason),
      ['forbidden_change'],
    );
  });

  test('K4: the path policy is the repository’s own', async () => {
    const s = setup({ policy: { ...DEFAULT_PATH_POLICY, workflows: [] } });
    s.agent.add(H1);
    s.github.set(H1, H2, [
      { path: '.github/workflows/ci.yml', status: 'modified', patch: '@@ -1 +1 @@\n-a\n+b', blobSha: null },
    ]);
    assert.equal((await checkAgentPush(s.deps, task(), H2)).kind, 'allowed');
  });

  test('K4: a push at GitHub’s 300-file cap fails closed: the files past it cannot be checked', async () => {
    const s = setup();
    s.agent.add(H1);
    const files: ComparedFile[] = Array.from({ length: 300 }, (_, i) => ({
      path: `src/gen/f${String(i).padStart(3, '0')}.ts`,
      status: 'modified',
      patch: '@@ -1 +1 @@\n-a\n+b',
      blobSha: null,
    }));
    s.github.set(H1, H2, files, true);
    const r = await checkAgentPush(s.deps, task(), H2);
    assert.equal(r.kind === 'stopped' && r.reason, 'forbidden_change');
    assert.equal(s.stops[0]!.detail, TRUNCATED_DETAIL);

    // With an offense among the first 300, both are said.
    const t = setup();
    t.agent.add(H1);
    t.github.set(
      H1,
      H2,
      [{ path: 'yarn.lock', status: 'modified', patch: '@@ -1 +1 @@\n-a\n+b', blobSha: null }, ...files.slice(1)],
      true,
    );
    await checkAgentPush(t.deps, task(), H2);
    assert.match(
      t.stops[0]!.detail,
      /^the push changes what judges the fix: yarn\.lock \(lockfile\); and the push changes at least 300 files/,
    );
  });

  test('K3: A-B-A over three pushes (the code goes X, Y, X) stops with thrash_aba on the third', async () => {
    const s = setup();
    s.agent.add(H1);
    s.github.set(H1, H2, X()); // push 1: base → X
    assert.equal((await checkAgentPush(s.deps, task(), H2)).kind, 'allowed');
    s.agent.add(H2);
    s.github.set(H2, H3, X_TO_Y).set(H1, H3, Y(40)); // push 2: X → Y (the line moved: hunk headers differ)
    assert.equal((await checkAgentPush(s.deps, task(), H3)).kind, 'allowed');
    s.agent.add(H3);
    s.github.set(H3, H4, Y_TO_X).set(H1, H4, X(57)); // push 3: Y → X again
    const r = await checkAgentPush(s.deps, task(), H4);
    assert.equal(r.kind, 'stopped');
    assert.equal(r.kind === 'stopped' && r.reason, 'thrash_aba');
    assert.deepEqual(
      s.stops.map((x) => x.reason),
      ['thrash_aba'],
    );
    assert.match(s.stops[0]!.detail, /A-B-A/);
    assert.equal(s.agent.hashOf(3), s.agent.hashOf(1), 'the third attempt left the code where the first did');
    assert.notEqual(s.agent.hashOf(2), s.agent.hashOf(1));
    // Each later push reads itself (path policy) and the code since the loop began (thrash).
    assert.deepEqual(s.github.calls, [
      'acme/shop 1...2',
      'acme/shop 2...3',
      'acme/shop 1...3',
      'acme/shop 3...4',
      'acme/shop 1...4',
    ]);
  });

  test('K3: a line toggled back and forth (X, base, X) is an A-B-A too', async () => {
    const s = setup();
    s.agent.add(H1);
    s.github.set(H1, H2, X());
    await checkAgentPush(s.deps, task(), H2);
    s.agent.add(H2);
    s.github.set(H2, H3, [line('round(total)', 'total')]).set(H1, H3, []); // undone: nothing since the base
    await checkAgentPush(s.deps, task(), H3);
    s.agent.add(H3);
    s.github.set(H3, H4, X()).set(H1, H4, X());
    const r = await checkAgentPush(s.deps, task(), H4);
    assert.equal(r.kind === 'stopped' && r.reason, 'thrash_aba');
  });

  test('K3: coming back to where an earlier (not the last-but-one) attempt left the code is a repeat', async () => {
    const s = setup();
    const Z = [line('total', 'Math.ceil(total)')];
    s.agent.add(H1);
    s.github.set(H1, H2, X());
    await checkAgentPush(s.deps, task(), H2);
    s.agent.add(H2);
    s.github.set(H2, H3, X_TO_Y).set(H1, H3, Y());
    await checkAgentPush(s.deps, task(), H3);
    s.agent.add(H3);
    s.github.set(H3, H4, [line('total.toFixed(2)', 'Math.ceil(total)')]).set(H1, H4, Z);
    assert.equal((await checkAgentPush(s.deps, task(), H4)).kind, 'allowed');
    const H5 = sha('5');
    s.agent.add(H4);
    s.github.set(H4, H5, [line('Math.ceil(total)', 'round(total)')]).set(H1, H5, X());
    const r = await checkAgentPush(s.deps, task(), H5);
    assert.equal(r.kind === 'stopped' && r.reason, 'thrash_repeat');
    assert.match(s.stops[0]!.detail, /attempt 4 repeats the diff of attempt 1/);
  });

  test('K3: an empty push (CI re-run) leaves the code as the last attempt did: a repeat', async () => {
    const s = setup();
    s.agent.add(H1);
    s.github.set(H1, H2, sourceFix);
    await checkAgentPush(s.deps, task(), H2);
    s.agent.add(H2);
    s.github.set(H2, H3, []).set(H1, H3, sourceFix);
    const r = await checkAgentPush(s.deps, task(), H3);
    assert.equal(r.kind === 'stopped' && r.reason, 'thrash_repeat');
  });

  test('catch-up: an attempt claimed on the new head before the guard ran does not hide the push that made it', async () => {
    const s = setup();
    s.agent.add(H1);
    s.agent.add(H2); // the webhook claimed H2's red before the poll saw H2
    s.github.set(H1, H2, X());
    const r = await checkAgentPush(s.deps, task(), H2);
    assert.deepEqual(r.kind === 'allowed' && r.checked.map((c) => [c.attemptId, c.from, c.to]), [[1, H1, H2]]);
    assert.equal(s.agent.hashOf(2), null, 'attempt 2 has not been answered yet');

    // Both later pushes seen at once: each attempt's push ends at the next attempt's head.
    s.agent.add(H3);
    s.github.set(H2, H3, X_TO_Y).set(H1, H3, Y()).set(H3, H4, Y_TO_X).set(H1, H4, X());
    const later = await checkAgentPush(s.deps, task(), H4);
    assert.equal(later.kind === 'stopped' && later.reason, 'thrash_aba');
    assert.equal(later.kind === 'stopped' && later.push.attemptId, 3);
    assert.deepEqual(later.kind === 'stopped' && later.checked.map((c) => c.attemptId), [2]);
  });

  test('attempts on one head (a retry, a review of the same commit) are answered by one push, owned by the last', async () => {
    const s = setup();
    s.agent.add(H1);
    s.agent.add(H1);
    s.github.set(H1, H2, sourceFix);
    const r = await checkAgentPush(s.deps, task(), H2);
    assert.deepEqual(r.kind === 'allowed' && r.checked.map((c) => c.attemptId), [2]);
    assert.equal(s.agent.hashOf(1), null);
    assert.deepEqual(s.github.calls, ['acme/shop 1...2']);
  });

  test('a push GitHub cannot show is left unhashed and read again on the next call', async () => {
    const s = setup();
    s.agent.add(H1);
    s.github.fail(H1, H2, new ProviderError(502, 'GET compare: 502 Bad Gateway', true));
    const r = await checkAgentPush(s.deps, task(), H2);
    assert.deepEqual(r, {
      kind: 'allowed',
      checked: [],
      unreadable: [{ attemptId: 1, from: H1, to: H2, status: 502, error: 'GET compare: 502 Bad Gateway' }],
    });
    assert.equal(s.agent.hashOf(1), null);
    s.github.set(H1, H2, sourceFix);
    assert.equal((await checkAgentPush(s.deps, task(), H2)).kind, 'allowed');
    assert.ok(s.agent.hashOf(1));
  });

  test('a stop that could not be filed leaves the push unhashed, so it is judged again', async () => {
    const s = setup({ stopFails: true });
    s.agent.add(H1);
    s.github.set(H1, H2, [
      { path: 'package-lock.json', status: 'modified', patch: '@@ -1 +1 @@\n-a\n+b', blobSha: null },
    ]);
    await assert.rejects(checkAgentPush(s.deps, task(), H2), /notice could not be filed/);
    assert.equal(s.agent.hashOf(1), null);
  });

  test('createPushGuard never throws: failures are logged for the next tick', async () => {
    const s = setup();
    const logged: Array<{ level: string; msg: string | undefined; obj: object }> = [];
    const at = (level: string) => (obj: object, msg?: string) => void logged.push({ level, msg, obj });
    const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    const guard = createPushGuard({ ...s.deps, logger });
    s.agent.add(H1);
    s.agent.failLives = true;
    await guard(task(), H2);
    assert.deepEqual(
      logged.map((l) => [l.level, l.msg]),
      [['error', 'guard.push_failed']],
    );
    s.agent.failLives = false;
    s.github.set(H1, H2, [{ path: '.github/workflows/ci.yml', status: 'removed', patch: null, blobSha: 'e1' }]);
    await guard(task(), H2);
    assert.deepEqual(logged.at(-1)!.msg, 'guard.push_stopped');
    assert.equal((logged.at(-1)!.obj as { reason: string }).reason, 'forbidden_change');
  });
});

describe('K3: the unified diff the hash is taken of', () => {
  test('git-style sections for modified, added, removed, renamed and patch-less files', () => {
    const text = unifiedDiff([
      { path: 'src/a.ts', status: 'modified', patch: '@@ -1 +1 @@\n-a\n+b', blobSha: 'x' },
      { path: 'src/new.ts', status: 'added', patch: '@@ -0,0 +1 @@\n+n', blobSha: 'y' },
      { path: 'src/gone.ts', status: 'removed', patch: '@@ -1 +0,0 @@\n-g', blobSha: 'z' },
      { path: 'src/b.ts', status: 'renamed', previousPath: 'src/old-b.ts', patch: '', blobSha: 'w' },
      { path: 'logo.png', status: 'modified', patch: null, blobSha: 'f00d' },
    ]);
    assert.equal(
      text,
      [
        'diff --git a/src/a.ts b/src/a.ts',
        '--- a/src/a.ts',
        '+++ b/src/a.ts',
        '@@ -1 +1 @@\n-a\n+b',
        'diff --git a/src/new.ts b/src/new.ts',
        '--- /dev/null',
        '+++ b/src/new.ts',
        '@@ -0,0 +1 @@\n+n',
        'diff --git a/src/gone.ts b/src/gone.ts',
        '--- a/src/gone.ts',
        '+++ /dev/null',
        '@@ -1 +0,0 @@\n-g',
        'diff --git a/src/old-b.ts b/src/b.ts',
        'rename from src/old-b.ts',
        'rename to src/b.ts',
        '--- a/src/old-b.ts',
        '+++ b/src/b.ts',
        'diff --git a/logo.png b/logo.png',
        'Binary files a/logo.png and b/logo.png differ',
        'blob f00d',
      ].join('\n'),
    );
  });

  test('the hash ignores where a change lands and the order of files; it sees what changed', () => {
    const a = {
      path: 'src/a.ts',
      status: 'modified' as const,
      patch: '@@ -3,3 +3,3 @@ fn\n ctx\n-old\n+new\n ctx',
      blobSha: '1',
    };
    const moved = { ...a, patch: '@@ -90,3 +90,3 @@ other\n other ctx\n-old\n+new\n more', blobSha: '2' };
    const b = { path: 'src/b.ts', status: 'modified' as const, patch: '@@ -1 +1 @@\n-x\n+y', blobSha: '3' };
    assert.equal(diffHash(unifiedDiff([a, b])), diffHash(unifiedDiff([b, moved])));
    assert.notEqual(
      diffHash(unifiedDiff([a])),
      diffHash(unifiedDiff([{ ...a, patch: a.patch.replace('+new', '+newer') }])),
    );
    const png = { path: 'logo.png', status: 'modified' as const, patch: null, blobSha: 'aaa' };
    assert.notEqual(
      diffHash(unifiedDiff([png])),
      diffHash(unifiedDiff([{ ...png, blobSha: 'bbb' }])),
      'two binary contents differ',
    );
  });
});
