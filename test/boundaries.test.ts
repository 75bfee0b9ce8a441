// The import direction of decision 0002, checked: core ← app ← adapters ← drivers ← main. Every relative
// import of a non-test file under src/ is classified by the layers of the two paths; a violation fails the
// test unless it is listed in EXCEPTIONS, and an exception that is no longer a violation fails it too, so
// the list can only shrink. Test files (*.test.ts) may import anything.
// Issue 34 adds three rules of the same kind, each with its own shrink-only list: no import loop among
// the files of src/; no source file over 600 lines (generated files, marked, excepted); no file under
// src/core/ or src/app/ naming a host in its code (comments may).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Imports allowed for now, as 'from -> to' (paths from the repository root). Delete a line once it is fixed. */
export const EXCEPTIONS: readonly string[] = [];

/**
 * Files still over MAX_LINES (issue 34), each being split by the helper who owns it. Delete a line once
 * the file is split; a line whose file is no longer over the limit fails the test.
 */
export const OVERSIZE_EXCEPTIONS: readonly string[] = [];

/**
 * Files under src/core/ and src/app/ that still name a host in code (issue 34), until the host seam
 * reaches them. Delete a line once the file speaks neutral words; a stale line fails the test.
 */
export const HOST_NAMING_EXCEPTIONS: readonly string[] = [];

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
  // What every host shares and no host owns (the bounded log reader): a leaf, so any host may use it.
  ['src/hosts/', 'leaf'],
];

/**
 * A code host added after GitHub and GitLab lives in its own folder under src/hosts/ (decision 0060,
 * docs/adding-a-host.md): an adapter of its own, so adding one changes no line here.
 */
const HOST_FOLDER = /^src\/(hosts\/[^/]+)\//;

export function layerOf(path: string): Layer | undefined {
  const host = HOST_FOLDER.exec(path);
  if (host) return { kind: 'adapter', unit: host[1]! };
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

  test('a host added under src/hosts/<id>/ is an adapter of its own with no line added here (decision 0060)', () => {
    assert.deepEqual(layerOf('src/hosts/bitbucket/host.ts'), { kind: 'adapter', unit: 'hosts/bitbucket' });
    assert.deepEqual(layerOf('src/hosts/bounded-log.ts'), { kind: 'leaf', unit: 'hosts/' });
    assert.ok(!refused('src/hosts/bitbucket/host.ts', 'src/hosts/bitbucket/words.ts'));
    assert.ok(!refused('src/hosts/bitbucket/host.ts', 'src/app/hosts.ts'));
    assert.ok(!refused('src/hosts/bitbucket/webhook.ts', 'src/hosts/webhook-edge.ts'));
    assert.ok(refused('src/hosts/bitbucket/client.ts', 'src/github/client.ts'));
    assert.ok(refused('src/hosts/bitbucket/client.ts', 'src/hosts/azure/client.ts'));
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

// ---- import loops (issue 34) --------------------------------------------------------------------------

/**
 * Every import loop among `edges` (file → the files it imports), one concrete loop per strongly
 * connected group, each as its files in import order with the first repeated at the end.
 */
export function importLoops(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components; a component of two or more files, or a file importing
  // itself, holds a loop.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (edges.get(v) ?? []).includes(v)) groups.push(group);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.map((group) => loopThrough(group, edges)).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest loop from the group's first file (by name) back to itself, staying inside the group. */
function loopThrough(group: readonly string[], edges: ReadonlyMap<string, readonly string[]>): string[] {
  const inGroup = new Set(group);
  const start = [...group].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...(edges.get(v) ?? [])].sort()) {
      if (!inGroup.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

describe('no import loop among the files of src/ (issue 34)', () => {
  test('no non-test file under src/ reaches itself through relative imports, type-only ones included', () => {
    const edges = new Map<string, string[]>();
    for (const i of relativeImportsOf(sourceFiles().filter((f) => !isTestFile(f)))) {
      edges.set(i.from, [...(edges.get(i.from) ?? []), i.to]);
    }
    assert.deepEqual(
      importLoops(edges).map((loop) => loop.join(' → ')),
      [],
      'an import loop: move what the files share into a file both import (a type into its own file, ' +
        'a pure rule into core/), so the dependency runs one way',
    );
  });

  test('the loop detector finds a three-file loop and a self-import, and passes a chain', () => {
    const loops = importLoops(
      new Map([
        ['src/core/a.ts', ['src/core/b.ts']],
        ['src/core/b.ts', ['src/core/c.ts', 'src/core/d.ts']],
        ['src/core/c.ts', ['src/core/a.ts']],
        ['src/core/d.ts', []],
        ['src/core/e.ts', ['src/core/e.ts']],
      ]),
    );
    assert.deepEqual(loops, [
      ['src/core/a.ts', 'src/core/b.ts', 'src/core/c.ts', 'src/core/a.ts'],
      ['src/core/e.ts', 'src/core/e.ts'],
    ]);
    assert.deepEqual(
      importLoops(
        new Map([
          ['x.ts', ['y.ts']],
          ['y.ts', ['z.ts']],
        ]),
      ),
      [],
    );
  });

  test('a type-only import counts: it is read as an import like any other', () => {
    assert.deepEqual(specifiersOf("import type { Verdict } from './verdict.js';"), ['./verdict.js']);
  });
});

// ---- file length (issue 34) ---------------------------------------------------------------------------

/** The most lines a source file may have: past it, split the file by what its parts decide. */
export const MAX_LINES = 600;

/**
 * A generated file says so on its first line, naming the script that writes it, and is excepted from
 * MAX_LINES (nobody reads it to change it; its generator is what is read). Write exactly:
 *   // @generated by scripts/<the-generator>.ts: do not edit
 */
export const GENERATED_MARKER = /^\/\/ @generated by \S+: do not edit\s*$/;

const LENGTH_ROOTS = ['src', 'scripts', 'bench', 'bin', 'hooks'] as const;

/** Test files and test support (fixtures, fakes under a test folder) may be long; the rule is for the source. */
const isTestOrSupport = (path: string): boolean =>
  /\.test\.[cm]?[jt]sx?$/.test(path) || /(^|\/)(test|tests|fixtures|test-support)\//.test(path);

/** Whether a file's text is over MAX_LINES and not marked generated; its line count either way. */
export function oversize(text: string): { lines: number; over: boolean } {
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const generated = GENERATED_MARKER.test(text.slice(0, text.indexOf('\n') >>> 0));
  return { lines, over: lines > MAX_LINES && !generated };
}

function lengthCheckedFiles(): string[] {
  return LENGTH_ROOTS.filter((root) => existsSync(posix.join(ROOT, root)))
    .flatMap((root) =>
      readdirSync(posix.join(ROOT, root), { recursive: true, encoding: 'utf8' }).map(
        (p) => `${root}/${p.split('\\').join('/')}`,
      ),
    )
    .filter((p) => /\.([cm]?[jt]s|tsx|jsx)$/.test(p) && !p.includes('/node_modules/') && !isTestOrSupport(p))
    .sort();
}

describe('no source file over 600 lines (issue 34)', () => {
  const measured = lengthCheckedFiles().map((path) => ({
    path,
    ...oversize(readFileSync(posix.join(ROOT, path), 'utf8')),
  }));
  const excepted = new Set(OVERSIZE_EXCEPTIONS);

  test('every source file under src/, scripts/, bench/, bin/ and hooks/ has at most 600 lines', () => {
    assert.deepEqual(
      measured
        .filter((f) => f.over && !excepted.has(f.path))
        .map(
          (f) =>
            `${f.path}: ${f.lines} lines; split it by what its parts decide (one concept per file), or, if a ` +
            `script writes it, mark its first line "// @generated by <script>: do not edit"`,
        ),
      [],
    );
  });

  test('every OVERSIZE_EXCEPTIONS entry is still over 600 lines, so the list only shrinks', () => {
    const over = new Set(measured.filter((f) => f.over).map((f) => f.path));
    assert.deepEqual(
      OVERSIZE_EXCEPTIONS.filter((p) => !over.has(p)).map(
        (p) =>
          `'${p}' is no longer over ${MAX_LINES} lines: delete it from OVERSIZE_EXCEPTIONS in test/boundaries.test.ts`,
      ),
      [],
    );
  });

  test('the length detector counts lines, and spares only a file marked generated on its first line', () => {
    const long = (first: string): string =>
      [first, ...Array.from({ length: 600 }, (_, i) => `const x${i} = ${i};`)].join('\n') + '\n';
    assert.deepEqual(oversize(long('// a module')), { lines: 601, over: true });
    assert.deepEqual(oversize(long('// @generated by scripts/openapi.ts: do not edit')), { lines: 601, over: false });
    // The marker counts only on the first line, and only in its exact form.
    assert.equal(oversize(`// a module\n${long('// @generated by scripts/openapi.ts: do not edit')}`).over, true);
    assert.equal(oversize(long('// generated, do not edit')).over, true);
    assert.deepEqual(oversize(Array.from({ length: 600 }, () => 'x;').join('\n') + '\n'), { lines: 600, over: false });
  });
});

// ---- host names (issue 34) ----------------------------------------------------------------------------

/**
 * `source` with every comment replaced by spaces (line breaks kept, so line numbers stay), strings,
 * template literals and regular expressions left as they are.
 */
export function withoutComments(source: string): string {
  let out = '';
  let i = 0;
  // The last significant character of code: after one of these, a '/' starts a regular expression.
  let last = '';
  const blank = (s: string): string => s.replace(/[^\n]/g, ' ');
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? source.length : end;
      out += blank(source.slice(i, stop));
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += blank(source.slice(i, stop));
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
      last = c;
    } else if (
      c === '/' &&
      (last === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(last) || /\b(return|typeof|case)$/.test(out.trimEnd()))
    ) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== '\n' && (inClass || source[j] !== '/')) {
        if (source[j] === '\\') j++;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        j++;
      }
      out += source.slice(i, j + 1);
      i = j + 1;
      last = '/';
    } else {
      out += c;
      if (!/\s/.test(c)) last = c;
      i++;
    }
  }
  return out;
}

const HOST_WORD = /github|gitlab/i;

/** Each place the code (comments aside) names a host, as `line: text of the line`. */
export function hostNamings(source: string): string[] {
  const lines = withoutComments(source).split('\n');
  return lines.flatMap((line, n) => (HOST_WORD.test(line) ? [`${n + 1}: ${line.trim()}`] : []));
}

describe('no file under src/core/ or src/app/ names a host (issue 34)', () => {
  const named = sourceFiles()
    .filter((f) => (f.startsWith('src/core/') || f.startsWith('src/app/')) && !isTestFile(f))
    .map((path) => ({ path, at: hostNamings(readFileSync(posix.join(ROOT, path), 'utf8')) }))
    .filter((f) => f.at.length > 0);
  const excepted = new Set(HOST_NAMING_EXCEPTIONS);

  test('the core and the use-cases speak neutral words: no identifier or string says github or gitlab', () => {
    assert.deepEqual(
      named.filter((f) => !excepted.has(f.path)).flatMap((f) => f.at.map((at) => `${f.path}:${at}`)),
      [],
      "a host named in core/ or app/: move what is the host's own into its folder (src/github/, src/gitlab/) " +
        'behind the host registry, and speak of "the host" here (docs/adding-a-host.md); comments may name hosts',
    );
  });

  test('every HOST_NAMING_EXCEPTIONS entry still names a host, so the list only shrinks', () => {
    const still = new Set(named.map((f) => f.path));
    assert.deepEqual(
      HOST_NAMING_EXCEPTIONS.filter((p) => !still.has(p)).map(
        (p) => `'${p}' no longer names a host: delete it from HOST_NAMING_EXCEPTIONS in test/boundaries.test.ts`,
      ),
      [],
    );
  });

  test('the host detector finds a host in an identifier or a string, never in a comment', () => {
    const source = [
      '// GitHub sends check_run; GitLab sends pipeline hooks',
      '/* a block comment about gitlab',
      '   over two lines, github too */',
      "const url = 'https://example.com'; // not github",
      'const re = /\\/\\/ github? no: a regex is code/;',
      'export function fromGithub(x: number) {',
      "  return x > 1 ? 'gitlab' : `ok ${x}`; /* github */",
      '}',
    ].join('\n');
    assert.deepEqual(hostNamings(source), [
      '5: const re = /\\/\\/ github? no: a regex is code/;',
      '6: export function fromGithub(x: number) {',
      "7: return x > 1 ? 'gitlab' : `ok ${x}`;",
    ]);
    assert.deepEqual(hostNamings("// github\nconst host = 'the host';\n"), []);
  });
});
