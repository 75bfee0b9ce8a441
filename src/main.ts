// The only place where adapters are wired together: config → database → ledger → use-cases →
// HTTP server. `createFixloop` takes its adapters (clock, randomness, runner) from the caller so
// tests can pass their own; `serve` is what `fixloop serve` and `npm start` run.
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { loadConfig, type Config } from './config/config.js';
import { openDatabase, type Db } from './ledger/db.js';
import { migrateToLatest, migrationsApplied } from './ledger/migrations.js';
import { createLedger, ping } from './ledger/ledger.js';
import { createIngestor, type Ingestor } from './app/ingest.js';
import { ConfigError } from './config/errors.js';
import { createEvaluator } from './app/evaluate.js';
import { createEvaluationQueue, type EvaluationQueue } from './app/evaluation-queue.js';
import { createDispatcher, DISPATCH_LEASE_RENEW_MS, hashToken } from './app/dispatch.js';
import { createDecisionWriter } from './app/decision-writer.js';
import { createAgentLedger } from './ledger/agent-ledger.js';
import { createPushGuard } from './app/push-guard.js';
import { createProgressCheck, snapshotOf } from './app/progress-check.js';
import { DEFAULT_PATH_POLICY } from './core/path-policy.js';
import {
  adoptStrandedRuns,
  reconcileAttempts,
  settleStaleClaims,
  settleStaleDispatches,
  type FindAgent,
} from './app/reconcile.js';
import type { Clock, Ledger, Logger, Random, Runner } from './app/ports.js';
import type { Task } from './core/types.js';
import { createWebhookHandler } from './http/webhook.js';
import { createApi } from './http/api.js';
import { runnerFromConfig } from './runners/from-config.js';
import { createLogger } from './logging.js';
import { createHmac } from 'node:crypto';
import type { GitHubPort } from './app/github-port.js';
import { createPoller, type Poller } from './app/poll.js';
import { createHandoff } from './app/handoff.js';
import { prChecks } from './app/pr-checks.js';
import { createGitHub } from './github/client.js';
import { fetchLogTail, type FetchLogTailOptions } from './github/job-log.js';
import { createResolveRun } from './app/agent-ops.js';
import { findAgentProcess, livenessOf, thisHost } from './runners/process-mark.js';
import type { Liveness, ProcessMark } from './core/stranded-run.js';
import type { McpHttpHandler } from './mcp/http.js';

/** How long the first event waits for others to join its evaluation batch (see createFixloop). */
export const EVALUATION_GATHER_MS = 25;
/** How often a running process looks for runs left by a dead sibling on this host (ms). */
export const ADOPT_EVERY_MS = 30_000;
const WEBHOOK_PATH = '/api/github/webhooks';
export const MCP_PATH = '/mcp';
export const DEFAULT_API_TOKEN_FILE = './data/api-token';

/** Read the token kept in `file`, or create it (0600) with a fresh random token. */
export function ensureTokenFile(file: string): string {
  if (existsSync(file)) {
    const t = readFileSync(file, 'utf8').trim();
    if (t) return t;
  }
  mkdirSync(dirname(file), { recursive: true });
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

export interface FixloopAdapters {
  clock?: Clock;
  random?: Random;
  runner?: Runner | null;
  logger?: Logger;
  /** Crash-test fault points (FIXLOOP_FAULT); never set in production. */
  fault?: (
    point: 'before_claim' | 'after_claim' | 'before_start' | 'before_mark' | 'after_start',
  ) => void | Promise<void>;
  /** Attempts untouched for this long are reconciled at start-up (ms). */
  reconcileGraceMs?: number;
  /** GitHub: the port to use (tests: a client pointed at the fake); default from config; null = none. */
  github?: GitHubPort | null;
  /** Extra options for reading job logs (tests: trust the fake blob host's certificate). */
  logFetch?: Pick<FetchLogTailOptions, 'ca'>;
  /** Start the poll's timer (default true when GitHub is configured); tests drive `poller.tick()`. */
  startPoll?: boolean;
  /** This machine and how to check an agent process's life (default: hostname and /proc). */
  processes?: { host: string; liveness(mark: ProcessMark): Liveness; watchEveryMs?: number; find?: FindAgent };
  /** How often this process looks for runs a dead sibling on this host left behind (ms; default 30 s). */
  adoptEveryMs?: number;
  /** How often a dispatch in progress renews its lease (ms; default 10 s; app/dispatch.ts). */
  leaseRenewMs?: number;
}

export interface Fixloop {
  config: Config;
  db: Db;
  ledger: Ledger;
  ingestor: Ingestor;
  queue: EvaluationQueue;
  server: Server;
  /** The poll, when GitHub access is configured (E1). */
  poller: Poller | null;
  /** Wait until every delivery so far is committed and evaluated. */
  settle(): Promise<void>;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

export const systemClock: Clock = { now: () => new Date() };
export const systemRandom: Random = { token: (bytes) => randomBytes(bytes).toString('base64url') };

function githubFrom(config: Config, logger: Logger): GitHubPort | null {
  const g = config.github;
  if (g.token) return createGitHub({ apiUrl: g.apiUrl, auth: { kind: 'token', token: g.token }, log: logger });
  if (g.appId && g.privateKey)
    return createGitHub({
      apiUrl: g.apiUrl,
      auth: { kind: 'app', appId: g.appId, privateKey: g.privateKey },
      log: logger,
    });
  return null;
}

function runnerFrom(config: Config): Runner | null {
  return runnerFromConfig(config);
}

export async function createFixloop(config: Config, adapters: FixloopAdapters = {}): Promise<Fixloop> {
  const logger = adapters.logger ?? createLogger(config.logLevel);
  for (const w of config.warnings) logger.warn({}, w);
  const clock = adapters.clock ?? systemClock;
  const random = adapters.random ?? systemRandom;
  const db = openDatabase(config.databaseUrl, { onWarning: (message) => logger.warn({}, message) });
  await migrateToLatest(db.kysely, db.dialect);
  const ledger = createLedger(db, clock);
  const runner = adapters.runner !== undefined ? adapters.runner : runnerFrom(config);
  const apiUrl = config.publicUrl;

  const decisions = createDecisionWriter(ledger, logger);
  const agent = createAgentLedger(db, ledger);
  const github = adapters.github !== undefined ? adapters.github : githubFrom(config, logger);
  let self: Promise<string | null> | null = null;
  const selfLogin = async () => (github ? (self ??= github.selfLogin().catch(() => null)) : null);
  const processes = adapters.processes ?? {
    host: thisHost(),
    liveness: (mark: ProcessMark) => livenessOf(mark),
    find: (runId: number, tokenHash: string) => findAgentProcess(runId, (token) => hashToken(token) === tokenHash),
  };
  const findAgent = processes.find ? { findAgent: processes.find } : {};
  // Attempts untouched for this long are taken for abandoned by reconciliation. SQLite has one
  // process, so none is someone else's; on PostgreSQL other replicas may be dispatching right now,
  // and they renew their lease three times within the grace (decision 0014). Replicas of one
  // deployment are meant to share this setting.
  const grace = adapters.reconcileGraceMs ?? (db.dialect === 'sqlite' ? 0 : 30_000);
  const leaseRenewMs =
    adapters.leaseRenewMs ??
    (grace > 0 ? Math.max(50, Math.min(DISPATCH_LEASE_RENEW_MS, Math.floor(grace / 3))) : DISPATCH_LEASE_RENEW_MS);
  const dispatcher = createDispatcher({
    ledger,
    logger,
    runner,
    random,
    apiUrl,
    maxAttempts: config.maxAttempts,
    decisions,
    agent,
    promptTemplate: config.promptTemplate ?? undefined,
    liveness: processes.liveness,
    ...(processes.watchEveryMs !== undefined ? { watchEveryMs: processes.watchEveryMs } : {}),
    ...(adapters.fault ? { fault: adapters.fault } : {}),
    leaseRenewMs,
  });
  // The push guard needs the evaluator (to file its stop) and the evaluator calls the guard: bound late.
  let judgePush: ((task: Task, headSha: string) => Promise<boolean>) | null = null;
  const evaluator = createEvaluator({
    judgePush: (task, headSha) => (judgePush ? judgePush(task, headSha) : Promise.resolve(false)),
    ledger,
    logger,
    works: config.works,
    maxAttempts: config.maxAttempts,
    decisions,
    reviewBots: config.reviewBots,
    selfLogin,
    agent,
    cost: config.cost,
    wakeCaps: config.wakeCaps,
    dispatch: async (id) => {
      await dispatcher.dispatch(id);
    },
    ...(adapters.fault ? { fault: adapters.fault } : {}),
  });
  // Evaluation batches at a time. SQLite has one writer: one batch avoids lock churn; PostgreSQL
  // takes two. On PostgreSQL every read is a round trip, so a batch waits a moment for company.
  const onSqlite = db.dialect === 'sqlite';
  // Evaluation waits up to 25 ms for more events to join its batch: each batch costs its Task reads
  // and a commit of its decision rows whatever its size (a round trip or a WAL append), and a storm's
  // events arrive over milliseconds. Bigger batches cut fixloop's CPU per delivery by a tenth on
  // SQLite and more on PostgreSQL (bench/); 25 ms is nothing against the 1 s the loop has to act.
  const queue = createEvaluationQueue({
    evaluator,
    ledger,
    logger,
    decisions,
    concurrency: onSqlite ? 1 : 2,
    gatherMs: EVALUATION_GATHER_MS,
  });
  // Group commits at a time: SQLite one (a single writer); PostgreSQL two side by side, so one slow
  // commit does not hold every ack back (see ingest.ts).
  const ingestor = createIngestor({
    ledger,
    logger,
    onStored: (items) => queue.push(items),
    maxConcurrentCommits: onSqlite ? 1 : 2,
  });

  // Start-up: what a previous process left half-done is settled before new work arrives.
  await reconcileAttempts({
    ledger,
    logger,
    dispatcher,
    agent,
    host: processes.host,
    ...findAgent,
    maxAttempts: config.maxAttempts,
    olderThan: new Date(clock.now().getTime() - grace).toISOString(),
  });
  await queue.sweep();

  // E3: with GitHub credentials the poll runs — the safety net, or the whole ingress without webhooks.
  let poller: Poller | null = null;
  if (github) {
    const handoff = createHandoff({
      ledger,
      github,
      logger,
      clock,
      parkAfterMs: config.parkAfterMs,
      stateKey: createHmac('sha256', config.webhookSecrets[0]!).update('fixloop-state-comment').digest(),
      markHuman: (taskId, at) => agent.markHuman(taskId, at),
    });
    // K3/K4: every push after an automatic attempt is judged (thrash, forbidden changes) by the poll.
    const pushGuard = createPushGuard({
      github,
      agent,
      logger,
      policyFor: () => DEFAULT_PATH_POLICY,
      stop: async (task, reason, detail) => {
        await evaluator.stop(task, reason, detail, task.ciHeadSha);
      },
    });
    judgePush = pushGuard;
    const progress = createProgressCheck({
      agent,
      github,
      clock,
      logger,
      intervalMs: config.pollIntervalMs,
      evaluator,
    });
    poller = createPoller({
      ledger,
      github,
      logger,
      clock,
      evaluator,
      works: config.works,
      intervalMs: config.pollIntervalMs,
      afterPoll: (t, pr) => handoff.sync(t, pr),
      pushGuard,
      progress,
      ciMinutes: (taskId, head, minutes) => agent.setCiMinutes(taskId, head, minutes),
    });
    if (adapters.startPoll !== false) poller.start();
  }

  const handleWebhook = createWebhookHandler({
    secrets: config.webhookSecrets,
    maxBytes: config.webhookMaxBytes,
    ingestor,
    logger,
  });
  const fetchLog = (url: string, o: { lines: number }) => fetchLogTail(url, { ...o, ...adapters.logFetch });
  const resolveRun = createResolveRun({
    agent,
    ledger,
    github,
    fetchLog,
    clock,
    decisions,
    logger,
    maxAttempts: config.maxAttempts,
    ...(github ? { snapshot: (task) => snapshotOf(github, task) } : {}),
  });
  // The MCP SDK is the largest part of a fresh process's memory and only agents use it: it is
  // loaded with the first request to /mcp, not at start-up (the webhook path never needs it).
  let mcp: Promise<McpHttpHandler> | null = null;
  const handleMcp: McpHttpHandler = async (req, res) => {
    mcp ??= import('./mcp/http.js').then(
      (m) => m.createMcpHttpHandler(resolveRun, { onError: (err, where) => logger.error({ err, where }, 'mcp error') }),
      (err: unknown) => {
        // Not cached: the next request tries the import again.
        mcp = null;
        throw err;
      },
    );
    return (await mcp)(req, res);
  };
  const api = createApi({
    resolveRun,
    markHuman: (taskId) => agent.markHuman(taskId, clock.now().toISOString()),
    ledger,
    logger,
    works: config.works,
    apiToken: config.apiToken,
    ...(github
      ? {
          prChecks: (input) =>
            prChecks({ github, fetchLog: (url, o) => fetchLogTail(url, { ...o, ...adapters.logFetch }) }, input),
        }
      : {}),
    ready: async () => {
      try {
        await ping(db);
        return await migrationsApplied(db.kysely, db.dialect);
      } catch {
        return false;
      }
    },
  });
  const apiListener = getRequestListener(api.fetch);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === WEBHOOK_PATH) {
      handleWebhook(req, res).catch((err) => {
        logger.error({ err }, 'webhook handler failed');
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    if (path === MCP_PATH) {
      handleMcp(req, res).catch((err) => {
        logger.error({ err }, 'mcp handler failed');
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    void apiListener(req, res);
  });
  server.keepAliveTimeout = 65_000;

  // After start-up, every little while: a replica on this host that dies while this one runs leaves
  // its runs behind (decision 0013); and attempts a process left claimed, or dispatching with a
  // lapsed lease (0014), whether a dead sibling's or this process's own after a ledger failure. With
  // SQLite's grace of 0, the periodic pass waits a minute, far longer than any live evaluation holds
  // a claim. Created last, so a start-up that fails leaves no timer behind.
  const periodicGrace = grace > 0 ? grace : 60_000;
  let pass: Promise<void> | null = null;
  const periodic = setInterval(() => {
    if (pass) return;
    pass = (async () => {
      await adoptStrandedRuns({ ledger, logger, dispatcher, host: processes.host });
      const olderThan = new Date(clock.now().getTime() - periodicGrace).toISOString();
      await settleStaleDispatches({ ledger, logger, dispatcher, olderThan, ...findAgent });
      await settleStaleClaims({
        ledger,
        logger,
        dispatcher,
        maxAttempts: config.maxAttempts,
        olderThan,
        when: 'periodic',
      });
    })()
      .catch((err: unknown) => logger.error({ err }, 'periodic reconciliation failed'))
      .finally(() => {
        pass = null;
      });
  }, adapters.adoptEveryMs ?? ADOPT_EVERY_MS);
  periodic.unref();

  let closed = false;
  return {
    config,
    db,
    ledger,
    ingestor,
    queue,
    server,
    poller,
    async settle() {
      await ingestor.flush();
      await queue.idle();
      await decisions.drain();
    },
    listen(port = config.port, host = config.host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const addr = server.address();
          const p = typeof addr === 'object' && addr ? addr.port : port;
          resolve(`http://${host.includes(':') ? `[${host}]` : host}:${p}`);
        });
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(periodic);
      await pass;
      await poller?.stop();
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
      await ingestor.flush();
      await queue.idle();
      await dispatcher.stop();
      await decisions.drain();
      await db.close();
    },
  };
}

function positiveMs(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw ConfigError.at(
      'environment',
      [name],
      `must be a positive number of milliseconds (got ${JSON.stringify(value)})`,
    );
  return n;
}

/** `fixloop serve`: load the config, open the database, listen. */
export async function serve(
  opts: { configFile?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ close(): Promise<void>; url: string }> {
  const env = opts.env ?? process.env;
  let config = loadConfig({ env, ...(opts.configFile ? { file: opts.configFile } : {}) });
  const logger = createLogger(config.logLevel);
  if (config.apiToken === null) {
    // Secure by default even on loopback: the API never runs open; a token is made once and kept.
    const file = env.FIXLOOP_API_TOKEN_FILE ?? DEFAULT_API_TOKEN_FILE;
    config = Object.freeze({ ...config, apiToken: ensureTokenFile(file) });
    logger.info({ file }, 'FIXLOOP_API_TOKEN not set: using the generated token in this file');
  }
  const fault = env.FIXLOOP_FAULT;
  const app = await createFixloop(config, {
    logger,
    // Crash tests only: FIXLOOP_FAULT=<point>:kill dies by SIGKILL at that point of the pipeline.
    ...(fault?.endsWith(':kill')
      ? { fault: (p: string) => void (p === fault.slice(0, -':kill'.length) && process.kill(process.pid, 'SIGKILL')) }
      : {}),
    ...(env.FIXLOOP_RECONCILE_GRACE_MS ? { reconcileGraceMs: Number(env.FIXLOOP_RECONCILE_GRACE_MS) } : {}),
    // A period that is not a positive number would make setInterval fire every millisecond: refused.
    ...(env.FIXLOOP_ADOPT_EVERY_MS
      ? { adoptEveryMs: positiveMs('FIXLOOP_ADOPT_EVERY_MS', env.FIXLOOP_ADOPT_EVERY_MS) }
      : {}),
  });
  const url = await app.listen();
  logger.info(
    { url, database: app.db.dialect, works: config.works.length, runner: config.runner?.kind ?? null },
    'fixloop listening',
  );
  return { close: () => app.close(), url };
}
