// The image and the compose file (decision 0026, SPEC N1), checked without Docker: the Dockerfile's
// stages, what each copies from the build context (it must exist and not be in .dockerignore), and
// that the runtime starts as `npm start` does; compose.yaml's PostgreSQL and two replicas sharing one
// database, secret and token.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions by stage name, continuation lines joined and comments dropped. */
function stages(): Map<string, { from: string; steps: Instruction[] }> {
  const text = read('Dockerfile').replace(/\\\n/g, ' ');
  const out = new Map<string, { from: string; steps: Instruction[] }>();
  let current: Instruction[] | null = null;
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+) AS (\S+)$/i.exec(args);
      assert.ok(m, `every stage is named: FROM ${args}`);
      current = [];
      out.set(m[2]!, { from: m[1]!, steps: current });
    } else {
      assert.ok(current, `${op} before the first FROM`);
      current.push({ op: op.toUpperCase(), args });
    }
  }
  return out;
}

const all = (steps: Instruction[], op: string): string[] => steps.filter((s) => s.op === op).map((s) => s.args);

describe('Dockerfile (decision 0026)', () => {
  const s = stages();

  test('a build stage with the dev dependencies, a production-dependency stage, a slim runtime', () => {
    assert.deepEqual([...s.keys()], ['build', 'deps', 'runtime']);
    assert.match(all(s.get('build')!.steps, 'RUN').join('\n'), /npm ci\b(?!.*--omit)[\s\S]*npm run build/);
    assert.match(all(s.get('deps')!.steps, 'RUN').join('\n'), /npm ci --omit=dev/);
    assert.equal(s.get('runtime')!.from, 'node:20-bookworm-slim');
  });

  test('what each stage copies from the context exists and is not left out by .dockerignore', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'));
    for (const [name, stage] of s) {
      for (const copy of all(stage.steps, 'COPY')) {
        if (copy.startsWith('--from=')) continue;
        const sources = copy.split(/\s+/).slice(0, -1);
        for (const src of sources) {
          assert.ok(existsSync(join(ROOT, src)), `${name}: COPY ${src} exists`);
          assert.ok(!ignored.includes(src), `${name}: ${src} is not in .dockerignore`);
        }
      }
    }
    for (const needed of ['node_modules', 'dist', 'data', '.git']) assert.ok(ignored.includes(needed), needed);
  });

  test('the runtime: git installed, an unprivileged user, /data, SQLite there, a health check, port 3000', () => {
    const rt = s.get('runtime')!.steps;
    assert.match(all(rt, 'RUN').join('\n'), /apt-get install[^&]*\bgit\b/);
    const user = all(rt, 'USER');
    assert.equal(user.length, 1);
    assert.notEqual(user[0], 'root');
    assert.deepEqual(all(rt, 'VOLUME'), ['["/data"]']);
    assert.match(all(rt, 'ENV').join(' '), /DATABASE_URL=sqlite:\/data\/fixloop\.db/);
    assert.match(all(rt, 'ENV').join(' '), /HOST=0\.0\.0\.0/);
    assert.match(all(rt, 'HEALTHCHECK').join(' '), /\/healthz/);
    assert.deepEqual(all(rt, 'EXPOSE'), ['3000']);
    const copies = all(rt, 'COPY').join('\n');
    assert.match(copies, /--from=build \/app\/dist \.\/dist/);
    assert.match(copies, /--from=deps \/app\/node_modules \.\/node_modules/);
  });

  test('the runtime starts the launcher with the memory settings of `npm start` (decision 0010)', () => {
    const cmd = JSON.parse(all(s.get('runtime')!.steps, 'CMD')[0]!) as string[];
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start!;
    const npmArgv = start.replace(/^MALLOC_ARENA_MAX=\S+\s+/, '').split(/\s+/);
    assert.deepEqual(cmd, npmArgv);
    assert.ok(existsSync(join(ROOT, cmd.at(-2)!)), 'the entry file is in the repository');
    assert.match(all(s.get('runtime')!.steps, 'ENV').join(' '), /MALLOC_ARENA_MAX=2/);
  });
});

describe('compose.yaml (SPEC N1)', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; depends_on?: unknown; healthcheck?: unknown }>;
  };
  const replicas = Object.entries(compose.services).filter(([name]) => name.startsWith('fixloop'));

  test('PostgreSQL with a health check, and two fixloop replicas that wait for it', () => {
    assert.ok(compose.services.postgres?.healthcheck, 'postgres has a healthcheck');
    assert.equal(replicas.length, 2);
    for (const [name, svc] of replicas)
      assert.deepEqual(svc.depends_on, { postgres: { condition: 'service_healthy' } }, name);
  });

  test('the replicas share one PostgreSQL database, webhook secret and API token', () => {
    const envs = replicas.map(([, svc]) => svc.environment ?? {});
    for (const key of ['DATABASE_URL', 'WEBHOOK_SECRET', 'FIXLOOP_API_TOKEN']) {
      assert.ok(envs[0]![key], `${key} is set`);
      assert.equal(envs[1]![key], envs[0]![key], `${key} is the same on both`);
    }
    assert.match(envs[0]!.DATABASE_URL!, /^postgres:\/\/[^@]+@postgres:5432\//);
  });

  test('every variable the replicas set is one docs/configuration.md documents', () => {
    const doc = read('docs/configuration.md');
    for (const key of Object.keys(replicas[0]![1].environment ?? {})) assert.ok(doc.includes(`\`${key}\``), key);
  });
});
