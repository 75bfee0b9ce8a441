// The image and the compose file (decision 0026, 0048, SPEC N1), checked without Docker: the Dockerfile's
// stages and their pinned base images, what each copies from the build context (it must exist and not
// be in .dockerignore), and that the runtime starts as `npm start` does; compose.yaml's PostgreSQL and
// two replicas sharing one database, secret and token. image-start.test.ts starts the image's command.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { all, dockerfileStages, interpolate } from './dockerfile.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

describe('Dockerfile (decision 0026)', () => {
  const s = dockerfileStages(read('Dockerfile'));

  test('a build stage with the dev dependencies, a production-dependency stage, a slim runtime', () => {
    assert.deepEqual([...s.keys()], ['build', 'deps', 'runtime']);
    assert.match(all(s.get('build')!.steps, 'RUN').join('\n'), /npm ci\b(?!.*--omit)[\s\S]*npm run build/);
    assert.match(all(s.get('deps')!.steps, 'RUN').join('\n'), /npm ci --omit=dev/);
    assert.match(s.get('runtime')!.from, /^node:22[.\d]*-bookworm-slim@/);
  });

  test('every base image is Node 22 on Debian bookworm, pinned by a sha256 digest (decision 0048)', () => {
    for (const [name, stage] of s) {
      assert.match(stage.from, /^node:22(\.\d+){0,2}-bookworm(-slim)?@sha256:[0-9a-f]{64}$/, name);
      // One tag, one digest: the stages that name the same tag pin the same bytes.
      const same = [...s.values()].filter((o) => o.from.split('@')[0] === stage.from.split('@')[0]);
      for (const o of same) assert.equal(o.from, stage.from, `${name}: one digest per tag`);
    }
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

  test('every variable compose requires is one its opening lines tell you to export', () => {
    const text = read('compose.yaml');
    const opening = text.slice(0, text.indexOf('\nname:'));
    const required = [...text.matchAll(/\$\{([A-Z_]+):\?/g)].map((m) => m[1]!);
    assert.ok(required.length >= 4);
    for (const name of new Set(required)) assert.match(opening, new RegExp(`export .*\\b${name}=`), name);
  });

  test('people and agents have addresses of their own; the example config resumes agents over HTTP (decision 0048)', () => {
    const vars = {
      POSTGRES_PASSWORD: 'p',
      WEBHOOK_SECRET: 'w',
      FIXLOOP_API_TOKEN: 't',
      FIXLOOP_RUNNER_SECRET: 'r',
      FIXLOOP_PUBLIC_URL: 'https://fixloop.example.com',
      FIXLOOP_AGENT_URL: 'https://fixloop-agents.example.com',
    };
    for (const [name, svc] of replicas) {
      const env = Object.fromEntries(
        Object.entries(svc.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]),
      );
      assert.equal(env.FIXLOOP_PUBLIC_URL, vars.FIXLOOP_PUBLIC_URL, name);
      assert.equal(env.FIXLOOP_AGENT_URL, vars.FIXLOOP_AGENT_URL, name);
      assert.equal(env.FIXLOOP_RUNNER_SECRET, 'r', name);
      assert.throws(() => interpolate(String(svc.environment?.FIXLOOP_AGENT_URL), {}), /FIXLOOP_AGENT_URL/);
    }
    const example = parse(read('fixloop.example.yaml')) as { runner: { kind: string; url: string } };
    assert.equal(example.runner.kind, 'http');
    assert.match(example.runner.url, /^https:\/\//);
  });

  test('every variable the replicas set is one docs/configuration.md documents', () => {
    const doc = read('docs/configuration.md');
    for (const key of Object.keys(replicas[0]![1].environment ?? {})) assert.ok(doc.includes(`\`${key}\``), key);
  });
});
