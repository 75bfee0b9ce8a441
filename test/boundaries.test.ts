// The import direction of decision 0002, checked: core ← app ← adapters ← drivers ← main. Every relative
// import of a non-test file under src/ is classified by the layers of the two paths; a violation fails the
// test unless it is listed in EXCEPTIONS, and an exception that is no longer a violation fails it too, so
// the list can only shrink. Test files (*.test.ts) may import anything.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Imports allowed for now, as 'from -> to' (paths from the repository root). Delete a line once it is fixed. */
export const EXCEPTIONS: readonly string[] = [];

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// ---- layers -------------------------------------------------------------------------------------------

type LayerKind = 'core' | 'app' | 'config' | 'adapter' | 'driver' | 'main' | 'leaf';

/** A layer, and the unit inside it (an adapter's or a driver's folder) that may import itself. */
type Layer = { kind: LayerKind; unit: string };

// A prefix ending in '/' is a folder; any other is one file. The first match wins.
const LAYERS: readonly (readonly [prefix: string, kind: LayerKind])[] = [
  ['src/core/', 'core'],
  ['src/app/', 'app'],
  ['src/config/', 'config'],
  ['src/ledger/', 'adapter'],
  ['src/github/', 'adapter'],
  ['src/gitlab/', 'adapter'],
  ['src/runners/', 'adapter'],
  ['src/metrics/', 'adapter'],
  ['src/sinks/', 'adapter'],
  ['src/logging.ts', 'adapter'],
  // The binary's entry point picks which driver the process runs (serve, mcp, client commands).
  ['src/cli/main.ts', 'main'],
  ['src/http/', 'driver'],
  ['src/mcp/', 'driver'],
  ['src/dashboard/', 'driver'],
  ['src/cli/', 'driver'],
  ['src/main.ts', 'main'],
  ['src/wiring.ts', 'main'],
  ['src/wiring/', 'main'],
  ['src/version.ts', 'leaf'],
];

export function layerOf(path: string): Layer | undefined {
  for (const [prefix, kind] of LAYERS) {
    if (prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix) {
      return { kind, unit: prefix.replace(/^src\//, '') };
    }
  }
  return undefined;
}

export type Verdict = { kind: 'allow' } | { kind: 'refuse'; rule: string };

const ALLOW: Verdict = { kind: 'allow' };
const refuse = (rule: string): Verdict => ({ kind: 'refuse', rule });

/** Whether a non-test file at `from` may import the file at `to` (both paths from the repository root). */
export function importVerdict(from: string, to: string): Verdict {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a === undefined) return refuse(`${from} belongs to no layer (add it to LAYERS)`);
  if (a.kind === 'main') return ALLOW;
  if (b === undefined) return refuse(`${to} belongs to no layer (add it to LAYERS)`);
  switch (a.kind) {
    case 'core':
      // Stricter than "anyone may import a leaf": src/version.ts reads a file, and core does no I/O.
      return b.kind === 'core' ? ALLOW : refuse('core imports nothing of the project outside core');
    case 'app':
      return b.kind === 'core' || b.kind === 'app' || b.kind === 'leaf'
        ? ALLOW
        : refuse(`app imports only core and app (its ports live in app/), not ${describeLayer(b)}`);
    case 'config':
      return b.kind === 'core' || b.kind === 'config' || b.kind === 'leaf'
        ? ALLOW
        : refuse(
            `config imports only core: it is the schema of the environment and the file, not of ${describeLayer(b)}`,
          );
    case 'adapter':
      if (b.kind === 'adapter') {
        return b.unit === a.unit ? ALLOW : refuse(`an adapter never imports another adapter (${a.unit} → ${b.unit})`);
      }
      return b.kind === 'driver' || b.kind === 'main'
        ? refuse(`an adapter imports only core, app, config and its own folder, never ${describeLayer(b)}`)
        : ALLOW;
    case 'driver':
      if (b.kind === 'driver') {
        return b.unit === a.unit ? ALLOW : refuse(`a driver never imports another driver (${a.unit} → ${b.unit})`);
      }
      return b.kind === 'adapter'
        ? refuse(`a driver never imports an adapter (${b.unit}) directly: main wires the adapters in`)
        : ALLOW;
    case 'leaf':
      return b.kind === 'leaf' ? ALLOW : refuse('a leaf utility imports nothing of the project');
    default: {
      const unreachable: never = a.kind;
      return unreachable;
    }
  }
}

function describeLayer(l: Layer): string {
  return l.kind === 'adapter' || l.kind === 'driver' ? `the ${l.kind} ${l.unit}` : l.kind;
}

// ---- imports ------------------------------------------------------------------------------------------

// A static import or re-export starts a line: `import …`, `import type {\n a,\n b\n} from '…'`,
// `import '…'`, `export * from '…'`, `export { x } from '…'`. Anchoring at the line start keeps comment
// lines (// and *) out. A dynamic `import('…')` may sit anywhere but behind a comment marker on its line.
const STATIC_IMPORT = /^[ \t]*(?:import|export)\b\s*(?:[\w*{}\s,$]*?\bfrom\s*)?(['"])([^'"\n]+)\1/gm;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*(['"`])([^'"`\n]+)\1\s*[,)]/g;

/** Every module specifier `source` imports or re-exports, in order of appearance. */
export function specifiersOf(source: string): string[] {
  const found: { at: number; spec: string }[] = [];
  for (const m of source.matchAll(STATIC_IMPORT)) found.push({ at: m.index, spec: m[2]! });
  for (const m of source.matchAll(DYNAMIC_IMPORT)) {
    const line = source.slice(source.lastIndexOf('\n', m.index) + 1, m.index);
    if (/^\s*(?:\/\/|\/?\*)|(?:^|\s)\/\//.test(line)) continue;
    found.push({ at: m.index, spec: m[2]! });
  }
  return found.sort((x, y) => x.at - y.at).map((f) => f.spec);
}

/** The file a relative specifier names, from the repository root: './x.js' is the TypeScript file './x.ts'. */
export function resolveSpecifier(from: string, spec: string, exists: (path: string) => boolean): string {
  const joined = posix.normalize(posix.join(posix.dirname(from), spec));
  const candidates = /\.[cm]?js$/.test(joined)
    ? [joined.replace(/js$/, 'ts'), joined.replace(/js$/, 'tsx'), joined]
    : [joined, `${joined}.ts`, `${joined}/index.ts`];
  return candidates.find(exists) ?? candidates[0]!;
}

type Import = { from: string; spec: string; to: string };

function sourceFiles(): string[] {
  return readdirSync(posix.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .map((p) => `src/${p.split('\\').join('/')}`)
    .filter((p) => /\.[cm]?tsx?$/.test(p))
    .sort();
}

const isTestFile = (path: string): boolean => /\.test\.[cm]?tsx?$/.test(path);

function relativeImportsOf(files: readonly string[]): Import[] {
  const exists = (p: string): boolean => existsSync(posix.join(ROOT, p));
  return files.flatMap((from) =>
    specifiersOf(readFileSync(posix.join(ROOT, from), 'utf8'))
      .filter((spec) => spec.startsWith('./') || spec.startsWith('../'))
      .map((spec) => ({ from, spec, to: resolveSpecifier(from, spec, exists) })),
  );
}

type Violation = Import & { rule: string };

function violationsOf(imports: readonly Import[]): Violation[] {
  return imports.flatMap((i) => {
    const v = importVerdict(i.from, i.to);
    return v.kind === 'refuse' ? [{ ...i, rule: v.rule }] : [];
  });
}

const pair = (v: { from: string; to: string }): string => `${v.from} -> ${v.to}`;

// ---- the tree -----------------------------------------------------------------------------------------

describe('import boundaries of src/ (decision 0002)', () => {
  const files = sourceFiles();
  const violations = violationsOf(relativeImportsOf(files.filter((f) => !isTestFile(f))));
  const allowed = new Set(EXCEPTIONS);

  function assertNoNewViolations(kind: LayerKind): void {
    const unexpected = violations.filter((v) => layerOf(v.from)?.kind === kind && !allowed.has(pair(v)));
    assert.deepEqual(
      unexpected.map((v) => `${v.from} imports '${v.spec}' (${v.to}): ${v.rule}`),
      [],
      'imports against the direction core ← app ← adapters ← drivers ← main; fix them (EXCEPTIONS is not for new ones)',
    );
  }

  test('every file under src/ belongs to a layer', () => {
    assert.deepEqual(
      files.filter((f) => !isTestFile(f) && layerOf(f) === undefined),
      [],
      'a file outside every layer: move it, or add its folder to LAYERS in test/boundaries.test.ts',
    );
  });

  test('core imports nothing of the project outside core', () => assertNoNewViolations('core'));
  test('app imports only core and app', () => assertNoNewViolations('app'));
  test('config imports only core', () => assertNoNewViolations('config'));
  test('an adapter imports core, app, config and its own folder, never another adapter', () =>
    assertNoNewViolations('adapter'));
  test('a driver imports core, app, config and main, never an adapter or another driver', () =>
    assertNoNewViolations('driver'));
  test('a leaf utility imports nothing of the project', () => assertNoNewViolations('leaf'));

  test('every exception is still a violation, so the list only shrinks', () => {
    const current = new Set(violations.map(pair));
    assert.deepEqual(
      EXCEPTIONS.filter((e) => !current.has(e)).map(
        (e) => `'${e}' is no longer a violation: delete that line from EXCEPTIONS in test/boundaries.test.ts`,
      ),
      [],
    );
  });
});

// ---- the rule itself, over synthetic paths ------------------------------------------------------------

describe('the boundary classifier', () => {
  const refused = (from: string, to: string): boolean => importVerdict(from, to).kind === 'refuse';

  test('app may not import an adapter, even for an error class', () => {
    assert.ok(refused('src/app/evaluate.ts', 'src/ledger/errors.ts'));
    assert.ok(!refused('src/app/evaluate.ts', 'src/core/refusal.ts'));
  });

  test('an adapter may import core, app, config and its own folder, but not another adapter', () => {
    assert.ok(refused('src/runners/from-config.ts', 'src/github/scoped-token.ts'));
    assert.ok(refused('src/github/client.ts', 'src/logging.ts'));
    assert.ok(!refused('src/github/from-env.ts', 'src/config/schema.ts'));
    assert.ok(!refused('src/ledger/ledger.ts', 'src/app/ports.ts'));
    assert.ok(!refused('src/ledger/db.ts', 'src/ledger/schema.ts'));
  });

  test('a driver may import main and the layers below adapters, but not an adapter or another driver', () => {
    assert.ok(!refused('src/cli/main.ts', 'src/main.ts'));
    assert.ok(!refused('src/http/api.ts', 'src/wiring/serve.ts'));
    assert.ok(!refused('src/cli/main.ts', 'src/version.ts'));
    assert.ok(refused('src/cli/pr-checks.ts', 'src/github/job-log.ts'));
    assert.ok(refused('src/http/api.ts', 'src/mcp/agent-ops.ts'));
  });

  test('config may import core only, not the runner presets', () => {
    assert.ok(refused('src/config/schema.ts', 'src/runners/presets.ts'));
    assert.ok(!refused('src/config/schema.ts', 'src/core/budget.ts'));
  });

  test('core may import only core; main may import anything', () => {
    assert.ok(refused('src/core/budget.ts', 'src/app/ports.ts'));
    assert.ok(refused('src/core/budget.ts', 'src/version.ts'));
    assert.ok(!refused('src/main.ts', 'src/ledger/db.ts'));
    assert.ok(!refused('src/wiring.ts', 'src/mcp/http.ts'));
  });

  test('a refusal names the rule broken, with both folders', () => {
    assert.deepEqual(importVerdict('src/runners/from-config.ts', 'src/github/scoped-token.ts'), {
      kind: 'refuse',
      rule: 'an adapter never imports another adapter (runners/ → github/)',
    });
  });

  test('specifiers are read from multi-line, type-only, re-export and dynamic imports, not from comments', () => {
    const source = [
      "import {\n  a,\n  type b,\n} from './multi.js';",
      "import type { C } from '../type-only.js';",
      "import * as ns from './star.js';",
      "import './side-effect.js';",
      "export * from './all.js';",
      "export { x } from './some.js';",
      "export type {\n  Y,\n} from './types.js';",
      "export const z = 'not-an-import';",
      "// import { gone } from './commented.js';",
      " * also import('./in-a-doc-comment.js')",
      "const later = () => import('./dynamic.js'); // import('./trailing-comment.js')",
      "import { pkg } from 'node:fs';",
    ].join('\n');
    assert.deepEqual(specifiersOf(source), [
      './multi.js',
      '../type-only.js',
      './star.js',
      './side-effect.js',
      './all.js',
      './some.js',
      './types.js',
      './dynamic.js',
      'node:fs',
    ]);
  });

  test('a specifier resolves relative to the importing file, .js naming the .ts source', () => {
    const exists = (p: string): boolean => ['src/ledger/errors.ts', 'src/core/local-command/index.ts'].includes(p);
    assert.equal(resolveSpecifier('src/app/evaluate.ts', '../ledger/errors.js', exists), 'src/ledger/errors.ts');
    assert.equal(
      resolveSpecifier('src/app/pr-checks.ts', '../core/local-command', exists),
      'src/core/local-command/index.ts',
    );
  });
});
