// An in-process fixloop on a fresh database, listening on a loopback port, with a runner double
// that records every start (a fake of our own Runner port, not a mock of our modules).
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { createFixloop, type Fixloop, type FixloopAdapters } from '../../src/main.js';
import type { Runner, RunnerCallbacks, RunSpec } from '../../src/app/ports.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { createLogger } from '../../src/logging.js';
import { Writable } from 'node:stream';
import { tempDir } from './temp-dir.js';

export const SECRET = "It's a Secret to Everybody";
export const API_TOKEN = 'test-api-token';
export const REPO = { owner: 'acme', name: 'shop', id: 4242 };
export const SITE_REPO = { owner: 'acme', name: 'shop-site', id: 4343 };

export class RecordingRunner implements Runner {
  readonly kind = 'recording';
  readonly starts: RunSpec[] = [];
  private callbacks = new Map<number, RunnerCallbacks>();
  /**
   * Where the agent reaches fixloop (set by startHarness): each run's agent makes one call with its
   * run token as it starts, as a working agent does (I5: a run that never calls files a notice).
   * `silentAgents` makes agents that never call.
   */
  apiBase: string | null = null;
  silentAgents = false;
  /** When set, every run ends at once with this state. */
  constructor(private readonly autoExit: 'completed' | 'failed' | null = null) {}
  async start(spec: RunSpec, cb: RunnerCallbacks): Promise<void> {
    this.starts.push(spec);
    this.callbacks.set(spec.runId, cb);
    if (this.apiBase && !this.silentAgents) {
      const res = await fetch(`${this.apiBase}/api/run/state`, {
        headers: { authorization: `Bearer ${spec.runToken}` },
      }).catch(() => null);
      await res?.text();
    }
    if (this.autoExit) {
      const state = this.autoExit;
      setImmediate(() => cb.onExit(spec.runId, { state, exitCode: state === 'completed' ? 0 : 1 }));
    }
  }
  finish(runId: number, state: 'completed' | 'failed' = 'completed'): void {
    this.callbacks.get(runId)?.onExit(runId, { state, exitCode: state === 'completed' ? 0 : 1 });
  }
}

export const silentLogger = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

export function writeConfig(extra: Record<string, unknown> = {}): string {
  // Removed by close(), and at process exit for a harness a test never closes (or that failed to start).
  const dir = tempDir('fixloop-config-');
  const file = join(dir, 'fixloop.json');
  writeFileSync(
    file,
    JSON.stringify({
      works: [
        {
          name: 'shop',
          account: 'acme',
          repositories: [
            { name: 'acme/shop', role: 'data' },
            { name: 'acme/shop-site', role: 'website' },
          ],
        },
      ],
      ...extra,
    }),
  );
  return file;
}

export interface Harness {
  app: Fixloop;
  url: string;
  db: TestDatabase;
  runner: RecordingRunner;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startHarness(
  kind: 'sqlite' | 'postgres',
  opts: {
    env?: Record<string, string>;
    runner?: RecordingRunner;
    adapters?: FixloopAdapters;
    db?: TestDatabase;
    configExtra?: Record<string, unknown>;
  } = {},
): Promise<Harness> {
  const db = opts.db ?? (await createTestDatabase(kind));
  const configFile = writeConfig(opts.configExtra);
  const config = loadConfig({
    env: {
      WEBHOOK_SECRET: SECRET,
      FIXLOOP_API_TOKEN: API_TOKEN,
      DATABASE_URL: db.url,
      LOG_LEVEL: 'silent',
      PATH: process.env.PATH ?? '',
      ...opts.env,
    },
    file: configFile,
  });
  const runner = opts.runner ?? new RecordingRunner();
  const app = await createFixloop(config, { runner, logger: silentLogger, ...opts.adapters });
  const url = await app.listen(0, '127.0.0.1');
  runner.apiBase ??= url;
  return {
    app,
    url,
    db,
    runner,
    async api(method, path, body) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${API_TOKEN}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async close() {
      await app.close();
      if (!opts.db) await db.drop();
      rmSync(dirname(configFile), { recursive: true, force: true }); // no temp directory outlives the run
    },
  };
}
