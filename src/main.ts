// The composition root: config → database → ledger → use-cases → HTTP router. Wiring only, each
// part wired once and in order: each use-case lives in src/app/, each adapter is built in
// src/wiring.ts or its own folder, a group of use-cases in the src/wiring/ file named after it (the
// gate, the poll, the hosts), and every path served is declared in src/http/router.ts. `createFixloop` takes its adapters (clock,
// randomness, runner, GitHub) from the caller so tests can pass their own; `serve` is what
// `fixloop serve` and `npm start` run.
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from './config/config.js';
import { DEFAULT_ADOPT_EVERY_MS } from './config/env-schema.js';
import { openDatabase, type Db } from './ledger/db.js';
import { migrateToLatest, migrationsApplied } from './ledger/migrations.js';
import { createLedger, ping } from './ledger/ledger.js';
import { createAgentLedger } from './ledger/agent-ledger.js';
import { createDashboardSessions } from './ledger/sessions.js';
import { createIngestor, type Ingestor } from './app/ingest.js';
import type { BaseChecks, RequestRerun } from './app/evaluate.js';
import type { Poller } from './app/poll.js';
import { snapshotOf } from './app/progress-check.js';
import { createEvaluationQueue, type EvaluationQueue } from './app/evaluation-queue.js';
import { mentionRunnerFrom, runApproverFrom } from './wiring/mention-runner.js';
import { actionsRunnerFrom, followAgain, workflowTokenExchangeFrom } from './wiring/actions-runner.js';
import { createDispatcher, DISPATCH_LEASE_RENEW_MS, hashToken } from './app/dispatch.js';
import { createDecisionWriter } from './app/decision-writer.js';
import { reconcileAttempts, startPeriodicReconciliation } from './app/reconcile.js';
import type { FindAgent } from './app/reconcile-port.js';
import { prChecks } from './app/pr-checks.js';
import { createResolveRun } from './app/agent-ops.js';
import type { Clock, Logger, Random, Runner } from './app/ports.js';
import type { Ledger } from './app/ledger-port.js';
import type { ProviderPort } from './app/provider-port.js';
import type { Liveness, ProcessMark } from './core/stranded-run.js';
import type { FetchLogTailOptions } from './github/job-log.js';
import { findAgentProcess, livenessOf, thisHost } from './runners/process-mark.js';
import { fixloopDataPaths, protectDataPaths } from './runners/isolation.js';
import { createWebhookRoutes } from './http/webhook.js';
import { hostsFromConfig } from './wiring/hosts.js';
import type { Host } from './app/hosts.js';
import { githubSetupFromConfig } from './wiring/github-setup.js';
import { changeLinksOf } from './wiring/change-links.js';
import { failedJobLogReader } from './app/failed-job-log.js';
import { createApi } from './http/api.js';
import { sameSecret } from './http/auth.js';
import { createDashboard } from './dashboard/dashboard.js';
import { createPersonActions } from './app/person-actions.js';
import { createRouter } from './http/router.js';
import { createRunnerWebhookHandler } from './http/runner-webhook.js';
import { createMetricsHandler } from './http/metrics.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { readLedgerGauges } from './ledger/gauges.js';
import { createLogger } from './logging.js';
import { jobLogReader, noticeSinksFromConfig, runnerFromConfig } from './wiring.js';
import { gateFromConfig } from './wiring/gate.js';
import { pathPolicyOf } from './wiring/path-policy.js';
import { pollFromConfig } from './wiring/poll.js';
import { lazyMcpHandler } from './wiring/mcp.js';
import { closeServer } from './wiring/close-server.js';
import { ensureTokenFile } from './wiring/token-file.js';
import { createOutboxWorker, type OutboxWorker } from './app/outbox-worker.js';
import { proxyTrust } from './wiring/trusted-proxy.js';
import { atStep, explainStartupError } from './wiring/startup-errors.js';
import { startupBanner, tokenWhere } from './wiring/startup-banner.js';
import { ConfigError } from './config/errors.js';
import { packageVersion } from './version.js';
import { createResultsStore } from './ledger/results.js';
import { agentName, readResults } from './app/results.js';
import type { PeriodInput } from './core/results.js';

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
  github?: ProviderPort | null;
  /** GitLab: the port to use (tests: a client pointed at the fake GitLab); default from config; null = none. */
  gitlab?: ProviderPort | null;
  /** Code hosts beyond GitHub and GitLab (decision 0060; tests: a third, fake host). */
  hosts?: readonly Host[];
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
  /** Where the metrics go (tests: one a GitHub port built by the test also reports to); default a fresh one. */
  metrics?: Metrics;
  /** The notice outbox's claim pass period (ms; default 2 s); tests shorten it. */
  outboxEveryMs?: number;
  /** Start the outbox worker's timer (default true); tests may drive `outbox.tick()` instead. */
  startOutbox?: boolean;
  /** How often the dashboard's live stream reads the ledger (ms; default 1 s); tests shorten it. */
  dashboardLivePollMs?: number;
  /** How often the commit status watches the decision log (ms; default 2 s); tests shorten it. */
  commitStatusEveryMs?: number;
  /** T2: re-runs a head's failed jobs instead of an attempt (tests: a fake); default GitHub's, when configured (app/rerun.ts). */
  requestRerun?: RequestRerun;
  /** T1: the base branch's failing checks (tests: a fake); default none. */
  baseChecks?: (repository: string, pullRequest: number, baseRef: string | null) => Promise<BaseChecks | null>;
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
  /** The notice outbox's delivery worker (G1, P4); idle when no sink is configured. */
  outbox: OutboxWorker;
  /** Wait until every delivery so far is committed and evaluated. */
  settle(): Promise<void>;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const systemClock: Clock = { now: () => new Date() };
const systemRandom: Random = { token: (bytes) => randomBytes(bytes).toString('base64url') };

export async function createFixloop(config: Config, adapters: FixloopAdapters = {}): Promise<Fixloop> {
  const logger = adapters.logger ?? createLogger(config.logLevel);
  for (const w of config.warnings) logger.warn({}, w);
  const clock = adapters.clock ?? systemClock;
  const random = adapters.random ?? systemRandom;
  // Issue 32: a database that cannot be opened or migrated is a start-up failure worded for a person.
  const db = await atStep('database', async () => {
    const opened = openDatabase(config.databaseUrl);
    try {
      await migrateToLatest(opened.kysely, opened.dialect);
    } catch (err) {
      await opened.close().catch(() => undefined); // nothing is left holding the process open
      throw err;
    }
    return opened;
  });
  // N2: one registry per instance; the ledger's state is read from the database at each scrape.
  const metrics =
    adapters.metrics ?? createMetrics({ onError: (err, where) => logger.error({ err, where }, 'metrics read failed') });
  metrics.ledgerFrom(() => readLedgerGauges(db.kysely));
  const ledger = createLedger(
    db,
    clock,
    metrics.decisions,
    config.notices.sinks.map((s) => s.name),
  );
  // Read at each scrape: the pending notice deliveries every replica shares (one partial index).
  metrics.setOutboxDepth(() => ledger.outboxDepth());
  const agent = createAgentLedger(db, ledger);
  const decisions = createDecisionWriter(ledger, logger);
  // The code hosts (decision 0060); N3: conditional requests' answers are kept in the ledger.
  const hosts = hostsFromConfig(config, adapters, { logger, observeGitHub: metrics.github, etags: ledger });
  // Issue 35: the mention runner comments through the hosts; the actions runner records workflow runs.
  const actionsConfig = config.runner?.kind === 'actions' ? config.runner : null;
  const actionsRunner =
    adapters.runner === undefined && actionsConfig
      ? actionsRunnerFrom(actionsConfig, config, { ledger, logger })
      : null;
  const runner: Runner | null =
    adapters.runner !== undefined
      ? adapters.runner
      : config.runner?.kind === 'mention'
        ? mentionRunnerFrom(config.runner, config, hosts.registry, logger)
        : (actionsRunner ?? runnerFromConfig(config, { logger, clock }));
  const github = hosts.port;
  // Issue 35: the agent's held workflow runs, approved when the mention runner's configuration allows.
  const approvePendingRuns =
    config.runner?.kind === 'mention' ? runApproverFrom(config.runner, config, hosts.registry, logger) : undefined;
  const fetchLog = jobLogReader(adapters.logFetch);
  const selves = new Map<string, Promise<string | null>>();
  const links = changeLinksOf(hosts.registry); // each change written and linked by its own host
  const wordsOf = (repository: string) => hosts.registry.hostOfRepository(repository).words;
  const selfLogin = async (repository?: string) => {
    if (!github) return null;
    const host = hosts.registry.hostOfRepository(repository ?? '').id; // one login per host
    let self = selves.get(host);
    if (!self) selves.set(host, (self = github.selfLogin(repository).catch(() => null)));
    return self;
  };
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
    apiUrl: config.agentUrl, // issue 31: where agents reach fixloop, which may not be where people do
    maxAttempts: config.maxAttempts,
    decisions,
    agent,
    promptTemplate: config.promptTemplate ?? undefined,
    // Issue 34: the prompt speaks the host's words; a red with no output is completed from the host's job log.
    wordsOf,
    failedJobLog: failedJobLogReader((repository) => hosts.registry.hostOfRepository(repository).port()),
    works: config.works, // issue 36: a check's rule may add instructions to the prompt
    clock,
    // Issue 35: a run that ended without a call may have pushed; the host's head says so at once.
    headNow: async (task) => {
      const host = hosts.registry.hostOfRepository(task.repository).port();
      return host ? (await host.getPullRequest(task.repository, task.pullRequest)).headSha : null;
    },
    liveness: processes.liveness,
    ...(processes.watchEveryMs !== undefined ? { watchEveryMs: processes.watchEveryMs } : {}),
    ...(adapters.fault ? { fault: adapters.fault } : {}),
    leaseRenewMs,
  });
  const markHuman = (taskId: number) => agent.markHuman(taskId, clock.now().toISOString());
  // M4: a person's actions, the same for the dashboard, the API and comment commands; the command
  // runner can stop a cancelled run's agent.
  const actions = createPersonActions({
    ledger,
    markHuman,
    maxGrants: config.maxGrants, // V4: a person's grants of one more attempt, capped per Task
    resumeByPerson: (taskId, message) => dispatcher.resumeByPerson(taskId, message),
    ...(runner?.kill ? { killRun: (runId: number) => runner.kill?.(runId) ?? false } : {}),
  });
  // The gate, with the push guard (K3/K4) and the comment commands (F2) it calls built first.
  const { evaluator, pushGuard, baseReds } = gateFromConfig(config, {
    ledger,
    logger,
    clock,
    decisions,
    agent,
    wordsOf, // the notices it files speak the host's words (decision 0060)
    pathPolicy: pathPolicyOf(hosts.registry.hosts), // K4: every host's CI files, in every repository
    dispatcher,
    classify: hosts.registry.classify,
    github,
    selfLogin,
    actions,
    ...(adapters.requestRerun ? { requestRerun: adapters.requestRerun } : {}),
    ...(adapters.baseChecks ? { baseChecks: adapters.baseChecks } : {}),
    ...(approvePendingRuns ? { approvePendingRuns } : {}),
    ...(adapters.fault ? { fault: adapters.fault } : {}),
  });
  const queue = createEvaluationQueue({ evaluator, ledger, logger, decisions, classify: hosts.registry.classify });
  /** V4: set by close(): readiness answers 503 and nothing new is dispatched. */
  let draining = false;
  // One group commit at a time on both databases: what arrives meanwhile joins the next (decision 0038).
  const ingestor = createIngestor({
    ledger,
    logger,
    queue,
    decisions,
    works: config.works, // a delivery for another provider's Work is ignored (decision 0032)
    hosts: hosts.registry, // each host classifies what its receiver verified (decision 0060)
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
  if (actionsRunner) await followAgain(actionsRunner, { ledger, dispatcher, logger });

  // E3: with host access the poll runs — the safety net, or the whole ingress without webhooks.
  const poll = github
    ? pollFromConfig(config, {
        ledger,
        agent,
        github,
        logger,
        clock,
        metrics,
        evaluator,
        pushGuard,
        ...(baseReds ? { baseReds } : {}),
        wordsOf,
        hostIdOf: (repository) => hosts.registry.hostOfRepository(repository).id,
        selfLogin,
        commitStatusEveryMs: adapters.commitStatusEveryMs,
      })
    : null;
  const poller = poll?.poller ?? null;
  if (poller && adapters.startPoll !== false) poller.start();

  const resolveRun = createResolveRun({
    agent,
    ledger,
    host: github,
    fetchLog,
    clock,
    decisions,
    logger,
    maxAttempts: config.maxAttempts,
    ...(github ? { snapshot: (task) => snapshotOf(github, task) } : {}),
  });
  // FIXLOOP_TRUST_PROXY: how many proxies in front of a peer are believed about scheme, host and client.
  const trustedHops = proxyTrust(config.trustProxy);
  const handleMcp = lazyMcpHandler(resolveRun, {
    logger,
    addresses: { urls: [config.agentUrl, config.publicUrl], listenHost: config.host },
    proxyTrust: trustedHops,
  });
  // V1: Results for a period, shared by GET /api/results and the /results page (docs/results.md).
  const resultsStore = createResultsStore(db.kysely, db.dialect);
  const results = (input: PeriodInput) =>
    readResults(
      {
        ledger: resultsStore,
        now: () => clock.now(),
        // The configured runner by kind and preset; one given to createFixloop by its kind.
        agent: config.runner ? agentName(config.runner) : (runner?.kind ?? agentName(null)),
        currency: config.cost.currency,
      },
      input,
    );
  const api = createApi({
    results,
    actions,
    resolveRun,
    markHuman,
    agentSeen: (runId) => agent.markAgentSeen(runId, clock.now().toISOString()),
    ...(actionsConfig
      ? {
          exchangeWorkflowToken: workflowTokenExchangeFrom(actionsConfig, {
            agentUrl: config.agentUrl,
            ledger,
            random,
            clock,
            logger,
          }),
        }
      : {}),
    ledger,
    logger,
    works: config.works,
    apiToken: config.apiToken,
    maxGrants: config.maxGrants,
    maxAttempts: config.maxAttempts, // C1: board rows say the attempts allowed (M1: `fixloop tasks`)
    ...(github ? { prChecks: (input) => prChecks({ host: github, fetchLog }, input) } : {}),
    ready: async () => {
      // V4: shutting down, this replica answers 503 so a load balancer drains it.
      if (draining) return false;
      try {
        await ping(db);
        return await migrationsApplied(db.kysely, db.dialect);
      } catch {
        return false;
      }
    },
  });
  const dashboard = createDashboard({
    results,
    ledger,
    actions,
    logger,
    apiToken: config.apiToken,
    checkToken: (given) => config.apiToken !== null && sameSecret(given, config.apiToken),
    maxAttempts: config.maxAttempts,
    maxGrants: config.maxGrants,
    costCeiling: config.cost.ceiling,
    // Issue 33: spend in the configured currency; the board filters by the Works' repositories.
    currency: config.cost.currency,
    sinkCount: config.notices.sinks.length,
    repositories: config.works.flatMap((w) => w.repositories.map((r) => r.name)),
    works: config.works, // issue 36: the Task page names the rule of its failing check
    // Issues 19, 34: a Task links to its change on its own host (a merge request on GITLAB_URL, …).
    links,
    publicUrl: config.publicUrl,
    sessions: createDashboardSessions(db.kysely), // issue 31: sign-out ends the row on every replica
    proxyTrust: trustedHops,
    ...(adapters.dashboardLivePollMs ? { livePollMs: adapters.dashboardLivePollMs } : {}),
    observeSignIn: (why) => metrics.signInRefused(why),
    // Issue 32: an empty board shows a new install its next steps.
    onboarding: { works: config.works.length, github: github !== null, publicUrl: config.publicUrl },
  });
  // V3 (decision 0050): /setup connects GitHub from the browser; mounted before the dashboard's catch-all.
  api.route(
    '/',
    githubSetupFromConfig(config, { sessions: createDashboardSessions(db.kysely), logger, proxyTrust: trustedHops })
      .app,
  );
  api.route('/', dashboard.app); // M4: the dashboard at `/`, behind its own sign-in (src/dashboard/)
  const server = createRouter(
    {
      // One route per registered host; GitHub's answers 503 until it is connected (decision 0050),
      // GitLab's 404 while GITLAB_WEBHOOK_SECRET is unset (decision 0032).
      webhooks: createWebhookRoutes(hosts.registry, {
        ingestor,
        logger,
        maxBytes: config.webhookMaxBytes,
        maxInflightBytes: config.webhookMaxInflightBytes,
        observeAck: (seconds, status) => metrics.webhookAck(seconds, status),
      }),
      mcp: handleMcp,
      api,
      logger,
      metrics: createMetricsHandler({
        scrape: () => metrics.scrape(),
        apiToken: config.apiToken,
        metricsToken: config.metricsToken,
      }),
      // R2: a session runner's vendor webhook (Cursor's status change), verified by the runner.
      ...(runner?.receiveWebhook
        ? {
            runnerWebhook: createRunnerWebhookHandler({
              receiveWebhook: (raw, headers) => runner.receiveWebhook!(raw, headers),
            }),
          }
        : {}),
    },
    config.edge,
  );

  // Created last, so a start-up that fails leaves no timer behind.
  // G1/P4: deliveries to the notice sinks, apart from ingest and evaluation (decision 0025).
  const outbox = createOutboxWorker({
    outbox: ledger,
    sinks: noticeSinksFromConfig(config, undefined, links),
    schedule: config.notices.retry,
    clock,
    random,
    logger,
    everyMs: adapters.outboxEveryMs ?? 2_000,
    // A try never outlives its timeout, so a lease of twice that plus slack is never taken from a live one.
    leaseMs: config.notices.timeoutMs * 2 + 5_000,
  });
  if (adapters.startOutbox !== false) outbox.start();
  const periodic = startPeriodicReconciliation({
    ledger,
    logger,
    dispatcher,
    clock,
    host: processes.host,
    ...findAgent,
    maxAttempts: config.maxAttempts,
    graceMs: grace,
    everyMs: adapters.adoptEveryMs ?? DEFAULT_ADOPT_EVERY_MS,
    // I5: the I3 deadline, retries and stalls, with or without a poll (which, when there is one, leads).
    liveness: {
      agent,
      evaluator,
      pollIntervalMs: config.pollIntervalMs,
      poll: poller !== null,
      classify: hosts.registry.classify,
      // Issue 35: a run past its window ends with a notice, whatever its runner.
      runWindow: {
        runTimeoutMs: config.runTimeoutMs,
        endRun: dispatcher.endOverdue,
        pushSeen: dispatcher.pushSeen,
        wordsOf,
      },
    },
  });

  let closing: Promise<void> | null = null;
  return {
    config,
    db,
    ledger,
    ingestor,
    queue,
    server,
    poller,
    outbox,
    async settle() {
      await poller?.drain(); // the hand-off's writes the last tick queued (N3)
      await poll?.commitStatus?.drain(); // and the statuses, on their own lane (decision 0047)
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
    close() {
      closing ??= (async () => {
        // V4 (decision 0043): stop taking new work first. Readiness answers 503, nothing new is
        // dispatched (a claim is left for the next start), the poll and the periodic passes stop;
        // webhooks are still accepted and stored, since GitHub does not send them again by itself.
        draining = true;
        dispatcher.drain();
        await periodic.stop();
        await poller?.stop();
        await poll?.commitStatus?.stop();
        // Running agents get the grace with the server still up, so they can report their outcome;
        // those still running after it are stopped and their runs interrupted (offered again, free).
        await dispatcher.stop(config.shutdownGraceMs);
        dashboard.close(); // its live streams would hold the server open
        await closeServer(server);
        await ingestor.flush();
        await queue.idle();
        await outbox.stop();
        await decisions.drain();
        await db.close();
      })();
      return closing;
    },
  };
}

/**
 * `fixloop serve`: load the config, open the database, listen. A failure on the way is one line for a
 * person (a ConfigError as the config words it, anything else as a StartupError, issue 32); started,
 * `banner` holds the lines the CLI shows first (src/wiring/startup-banner.ts).
 */
export async function serve(
  opts: { configFile?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ close(): Promise<void>; url: string; shutdownGraceMs: number; banner: string[] }> {
  const env = opts.env ?? process.env;
  let config = loadConfig({ env, ...(opts.configFile ? { file: opts.configFile } : {}) });
  const where = {
    port: config.port,
    host: config.host,
    databaseUrl: config.databaseUrl,
    tokenFile: config.apiTokenFile,
    uid: process.getuid?.() ?? null,
  };
  try {
    const logger = createLogger(config.logLevel);
    // L3: the data directories (database, token file) are fixloop's alone before anything is written there.
    const data = fixloopDataPaths(config);
    for (const w of protectDataPaths({ dirs: data.dirs, workDir: config.workDir, secretFiles: config.secretFiles }))
      logger.warn({}, w);
    if (config.apiToken === null) {
      // Secure by default even on loopback: the API never runs open; a token is made once and kept.
      const file = config.apiTokenFile;
      config = Object.freeze({ ...config, apiToken: await atStep('token', () => ensureTokenFile(file)) });
      logger.info({ file }, 'FIXLOOP_API_TOKEN not set: using the generated token in this file');
    }
    const { fault, reconcileGraceMs, adoptEveryMs } = config;
    const app = await createFixloop(config, {
      logger,
      // Crash tests only: FIXLOOP_FAULT=<point>:kill dies by SIGKILL at that point of the pipeline.
      ...(fault ? { fault: (p: string) => void (p === fault.point && process.kill(process.pid, 'SIGKILL')) } : {}),
      // null: createFixloop picks the dialect's grace (0 on SQLite, 30 s on PostgreSQL).
      ...(reconcileGraceMs === null ? {} : { reconcileGraceMs }),
      adoptEveryMs,
    });
    let url: string;
    try {
      url = await atStep('listen', () => app.listen());
    } catch (err) {
      await app.close().catch(() => undefined); // its timers would keep a failed start alive
      throw err;
    }
    logger.info(
      { url, database: app.db.dialect, works: config.works.length, runner: config.runner?.kind ?? null },
      'fixloop listening',
    );
    const token = tokenWhere({
      fromVariable: env.FIXLOOP_API_TOKEN !== undefined && env.FIXLOOP_API_TOKEN !== '',
      file: config.apiTokenFile,
      cwd: process.cwd(),
    });
    const banner = startupBanner(config, {
      version: packageVersion(),
      listening: url,
      token,
      cwd: process.cwd(),
      // This module's own file says what the launcher chose: main.ts is the sources, main.js the build.
      fromSources: import.meta.url.endsWith('.ts'),
    });
    return { close: () => app.close(), url, shutdownGraceMs: config.shutdownGraceMs, banner };
  } catch (err) {
    if (err instanceof ConfigError) throw err; // already worded by the config (runner, isolation …)
    throw explainStartupError(err, where);
  }
}
