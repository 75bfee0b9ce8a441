// The JSON API (SPEC M2): Tasks, runs, the Inbox, the decision log, the stop flag and a pull
// request's checks (J1), all behind the API token; a run's own token may report that run's state
// (L1 http runner) and use the `/api/run/*` routes, which act for that one run only (M3, I2, K6, J1).
import { secureHeaders } from 'hono/secure-headers';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { routeRefusalWords, routeRepository } from '../core/route.js';
import type { Work } from '../core/types.js';
import type { Logger } from '../app/ports.js';
import type { Ledger } from '../app/ledger-port.js';
import { ProviderError } from '../app/provider-port.js';
import type { PrChecksInput, PrChecksResult } from '../app/pr-checks.js';
import { taskView } from '../app/task-view.js';
import {
  AGENT_OPS_ERROR_STATUS,
  AgentOpsError,
  type AgentOps,
  type AgentOpsErrorCode,
  type ResolveRun,
} from '../app/agent-ops-port.js';
import { createPersonActions, type ActionResult, type PersonActions } from '../app/person-actions.js';
import { DEFAULT_MAX_GRANTS } from '../core/grant-cap.js';
import { DEFAULT_MAX_ATTEMPTS } from '../core/budget.js';
import { bearerOf, matchesHash, sameSecret } from './auth.js';
import { openApiDocument } from './openapi.js';
import {
  RUN_ROUTE,
  boardQuery,
  deliveriesQuery,
  inboxQuery,
  newTask,
  outboxQuery,
  patchRun,
  patchTask,
  postResume,
  prChecksRequest,
  putBudget,
  putLoop,
  putParked,
  putStop,
  resultsQuery,
  runChecksQuery,
  runListQuery,
  oidcTokenExchange,
  runOutcome,
  runSpend,
  taskListQuery,
} from './api-requests.js';
import type { PeriodInput } from '../core/results.js';
import type { ResultsAnswer } from '../app/results.js';
import type { ExchangeWorkflowToken } from '../app/exchange-workflow-token.js';

export interface ApiDeps {
  ledger: Ledger;
  logger: Logger;
  works: readonly Work[];
  apiToken: string | null;
  ready(): Promise<boolean>;
  /** `pr checks` (J1); absent when no GitHub credentials are configured, and the route answers 503. */
  prChecks?: (input: PrChecksInput) => Promise<PrChecksResult>;
  /** The `/api/run/*` routes (M3 over the API): a run token to that run's ops; absent, they answer 503. */
  resolveRun?: ResolveRun;
  /** K9: a person acting on a Task through the API (its state, a run's state) resets the wake cap. */
  markHuman?: (taskId: number) => Promise<void>;
  /** I5: a call with a run's own token is its agent reaching fixloop (an agent platform's PATCH too). */
  agentSeen?: (runId: number) => Promise<void>;
  /** M4: a person's actions, shared with the dashboard; built from the ledger when absent. */
  actions?: PersonActions;
  /** V4: the configured cap on grants per Task (TASK_MAX_GRANTS), shown in a Task's view; default 3. */
  maxGrants?: number;
  /** C1: the configured budget (TASK_CI_AUTO_RESUME_MAX_ATTEMPTS), for a board row's `attemptsAllowed`; default 2. */
  maxAttempts?: number;
  /** V1: Results for a period (app/results.ts); absent, `GET /api/results` answers 503. */
  results?: (input: PeriodInput) => Promise<ResultsAnswer>;
  /** Issue 35: a workflow's OIDC token for its run's token (the actions runner); absent, the route answers 503. */
  exchangeWorkflowToken?: ExchangeWorkflowToken;
}

const RUN_PAGE_DEFAULT = 50;
/** A page of `GET /api/tasks` when a paging parameter is given: 10,000 Tasks are megabytes at once. */
const TASK_PAGE_DEFAULT = 100;
/** The open base reds /api/inbox lists at most (the dashboard's Inbox shows as many). */
const BASE_REDS_LISTED = 50;

function problem(c: Context, status: 400 | 401 | 403 | 404 | 409 | 422 | 502 | 503, error: string, message: string) {
  return c.json({ error, message }, status);
}

async function jsonBody(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    return Symbol.for('malformed');
  }
}

/** Where a person acted: `cli` when the `fixloop` CLI says so (X-Fixloop-Client: cli), else `api` (M1, H1). */
function viaOf(c: Context): 'api' | 'cli' {
  return c.req.header('x-fixloop-client') === 'cli' ? 'cli' : 'api';
}

function idParam(c: Context): number | null {
  const n = Number(c.req.param('id'));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function createApi(deps: ApiDeps): Hono {
  const { ledger } = deps;
  const maxGrants = deps.maxGrants ?? DEFAULT_MAX_GRANTS;
  const maxAttempts = deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const actions =
    deps.actions ??
    createPersonActions({ ledger, maxGrants, ...(deps.markHuman ? { markHuman: deps.markHuman } : {}) });
  /** A Task as the API shows it, with its grants (V4). */
  const view = (id: number) => taskView(ledger, id, { maxGrants });
  const app = new Hono();

  // Issue 31: JSON is never a page: nothing runs, loads or frames from it, and it is read as its type.
  // Only headers a route (or the dashboard, mounted on this app) did not set itself.
  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      xFrameOptions: 'DENY',
      referrerPolicy: 'no-referrer',
      strictTransportSecurity: false,
      overwrite: false,
    }),
  );

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/ping', (c) => c.text('PONG'));
  app.get('/readyz', async (c) => ((await deps.ready()) ? c.json({ ready: true }) : c.json({ ready: false }, 503)));

  // Every /api/ route but the webhook (served before this app) needs the API token, except the
  // run-state report, which a run may make with its own token, and the /api/run/* routes, which take
  // only a run's token.
  app.use('/api/*', async (c, next) => {
    const token = bearerOf(c.req.header('authorization'));
    const isRunPatch = c.req.method === 'PATCH' && /^\/api\/runs\/\d+$/.test(c.req.path);
    // The /api/run/* routes take a run's own token and check it themselves (withRun), never the API token.
    if (RUN_ROUTE.test(c.req.path)) return next();
    if (deps.apiToken === null) return next(); // loopback-only install without a token (config enforces this)
    if (token && sameSecret(token, deps.apiToken)) {
      c.set('principal' as never, 'person' as never);
      return next();
    }
    if (isRunPatch && token) {
      c.set('principal' as never, `run-token:${token}` as never);
      return next();
    }
    // Issue 32: a token that was sent but is not the API token is told apart from none at all.
    if (token !== null)
      return problem(
        c,
        401,
        'unauthorized',
        'wrong token: the bearer token is not the API token (FIXLOOP_API_TOKEN, or the token file named at start-up, ./data/api-token by default)',
      );
    return problem(c, 401, 'unauthorized', 'Authorization: Bearer <FIXLOOP_API_TOKEN> is required');
  });

  app.get('/api/openapi.json', (c) => c.json(openApiDocument));

  app.post('/api/tasks', async (c) => {
    const parsed = newTask.safeParse(await jsonBody(c));
    if (!parsed.success) return problem(c, 400, 'invalid_body', z.prettifyError(parsed.error));
    const route = routeRepository(deps.works, parsed.data.repository);
    if (route.kind === 'refuse') return problem(c, 422, route.reason, routeRefusalWords(route, parsed.data.repository));
    const created = await ledger.createTask({
      work: route.work.name,
      repository: route.repository,
      pullRequest: parsed.data.pullRequest,
      branch: parsed.data.branch,
      resumeRef: parsed.data.resumeRef ?? null,
    });
    if ('kind' in created)
      return c.json(
        {
          error: 'task_exists',
          message: 'a Task already holds this pull request',
          task: await view(created.task.id),
        },
        409,
      );
    return c.json(await view(created.task.id), 201);
  });

  app.get('/api/tasks', async (c) => {
    const q = taskListQuery.safeParse(c.req.query());
    if (!q.success) return problem(c, 400, 'invalid_query', z.prettifyError(q.error));
    const { state, repository, limit, after } = q.data;
    // No paging parameter: every Task, the shape callers have always had.
    if (limit === undefined && after === undefined)
      return c.json({ tasks: await ledger.listTasks({ state, repository }) });
    const size = limit ?? TASK_PAGE_DEFAULT;
    const page = await ledger.listTasks({ state, repository, after, limit: size + 1 });
    const tasks = page.slice(0, size);
    return c.json({ tasks, nextAfter: page.length > size ? tasks.at(-1)!.id : null });
  });

  app.get('/api/tasks/:id', async (c) => {
    const id = idParam(c);
    const found = id === null ? null : await view(id);
    return found ? c.json(found) : problem(c, 404, 'not_found', 'no such Task');
  });

  app.patch('/api/tasks/:id', async (c) => {
    const id = idParam(c);
    if (id === null) return problem(c, 404, 'not_found', 'no such Task');
    const parsed = patchTask.safeParse(await jsonBody(c));
    if (!parsed.success) return problem(c, 400, 'invalid_body', z.prettifyError(parsed.error));
    const task = await ledger.setTaskState(id, parsed.data.state);
    if (task) await deps.markHuman?.(id);
    return task ? c.json(await view(id)) : problem(c, 404, 'not_found', 'no such Task');
  });

  app.get('/api/runs', async (c) => {
    const q = runListQuery.safeParse(c.req.query());
    if (!q.success) return problem(c, 400, 'invalid_query', z.prettifyError(q.error));
    const limit = q.data.limit ?? RUN_PAGE_DEFAULT;
    const page = await ledger.pageRuns({ ...q.data, limit: limit + 1 });
    const runs = page.slice(0, limit);
    return c.json({ runs, nextBefore: page.length > limit ? runs.at(-1)!.id : null });
  });

  app.get('/api/runs/:id', async (c) => {
    const id = idParam(c);
    const run = id === null ? null : await ledger.getRun(id);
    if (!run || id === null) return problem(c, 404, 'not_found', 'no such run');
    const { tokenHash: _hidden, ...visible } = run;
    return c.json({ ...visible, log: await ledger.getRunLog(id) });
  });

  app.patch('/api/runs/:id', async (c) => {
    const id = idParam(c);
    const run = id === null ? null : await ledger.getRun(id);
    if (!run || id === null) return problem(c, 404, 'not_found', 'no such run');
    const principal = String(c.get('principal' as never) ?? 'person');
    if (principal.startsWith('run-token:')) {
      const token = principal.slice('run-token:'.length);
      if (!run.tokenHash || !matchesHash(token, run.tokenHash))
        return problem(c, 403, 'forbidden', 'this token is not scoped to this run');
      if (['completed', 'failed', 'cancelled'].includes(run.state))
        return problem(c, 409, 'run_ended', `run ${id} already ended (${run.state})`);
      await deps.agentSeen?.(id);
    }
    const parsed = patchRun.safeParse(await jsonBody(c));
    if (!parsed.success) return problem(c, 400, 'invalid_body', z.prettifyError(parsed.error));
    const moved = await ledger.setRunState(id, [run.state], parsed.data.state);
    if (moved && !principal.startsWith('run-token:')) await deps.markHuman?.(run.taskId);
    if (!moved) return problem(c, 409, 'conflict', 'the run changed state meanwhile; read it and retry');
    return c.json(moved);
  });

  // Without paging parameters, every notice ever filed (the shape callers have); with `limit` or
  // `after`, a page of what needs a person now, oldest first (M4).
  // Either way with the base branches failing now (issue 36), as the Inbox lists them.
  const openBaseReds = () => (ledger.openBaseReds ? ledger.openBaseReds(BASE_REDS_LISTED) : Promise.resolve([]));
  app.get('/api/inbox', async (c) => {
    const query = c.req.query();
    if (query.limit === undefined && query.after === undefined)
      return c.json({ notices: await ledger.listNotices(), baseReds: await openBaseReds() });
    const q = inboxQuery.safeParse(query);
    if (!q.success) return problem(c, 400, 'invalid_query', z.prettifyError(q.error));
    const page = await ledger.inboxPage({ limit: q.data.limit, ...(q.data.after ? { after: q.data.after } : {}) });
    return c.json({ notices: page.rows, nextAfter: page.nextAfter, baseReds: await openBaseReds() });
  });

  // G1/P4: the notice deliveries not done yet or given up, with their last error (decision 0025).
  app.get('/api/outbox', async (c) => {
    const q = outboxQuery.safeParse(c.req.query());
    if (!q.success) return problem(c, 400, 'invalid_query', z.prettifyError(q.error));
    const states = q.data.state ? [q.data.state] : (['pending', 'failed'] as const);
    return c.json({ deliveries: await ledger.listOutbox({ states, limit: q.data.limit }) });
  });

  // M4: the board, a keyset page of Tasks newest first with their loop state (GET /api/tasks keeps its shape).
  app.get('/api/board', async (c) => {
    const q = boardQuery.safeParse(c.req.query());
    if (!q.success) return problem(c, 400, 'invalid_query', z.prettifyError(q.error));
    const { q: search, ...rest } = q.data;
    const page = await ledger.boardPage({ ...rest, ...(search ? { search } : {}) });
    // C1, K5: the attempts allowed are the budget plus a person's grants ("1 of 2" on the board and in the CLI).
    const tasks = page.rows.map((r) => ({ ...r, attemptsAllowed: maxAttempts + r.extraAttempts }));
    return c.json({ tasks, nextBefore: page.nextBefore });
  });

  // V1: does the loop pay? The figures of a period (docs/results.md), the shape `fixloop results` reads.
  app.get('/api/results', async (c) => {
    if (!deps.results) return problem(c, 503, 'unavailable', 'Results are not available on this server');
    const q = resultsQuery.safeParse(c.req.query());
    if (!q.success) return problem(c, 400, 'invalid_query', z.prettifyError(q.error));
    const { period, from, to } = q.data;
    const answer = await deps.results({
      ...(period ? { period } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    });
    if (answer.kind === 'invalid') return problem(c, 400, 'invalid_query', answer.message);
    return c.json(answer.results);
  });

  /** A person's action answered as the Task (or run) after it, or its refusal. */
  const acted = async (c: Context, r: ActionResult, after: () => Promise<unknown>) => {
    if (r.kind === 'not_found') return problem(c, 404, 'not_found', r.message);
    if (r.kind === 'conflict') return problem(c, 409, r.code ?? 'conflict', r.message);
    if (r.kind === 'unavailable') return problem(c, 503, 'unavailable', r.message);
    return c.json(await after());
  };

  app.post('/api/tasks/:id/approve-one', async (c) => {
    const id = idParam(c);
    if (id === null) return problem(c, 404, 'not_found', 'no such Task');
    return acted(c, await actions.approveOne(id, viaOf(c)), () => view(id));
  });

  // V4: a person sets the Task's own cap on grants of one more attempt; raising it opens more.
  app.put('/api/tasks/:id/budget', async (c) => {
    const id = idParam(c);
    if (id === null) return problem(c, 404, 'not_found', 'no such Task');
    const parsed = putBudget.safeParse(await jsonBody(c));
    if (!parsed.success) return problem(c, 400, 'invalid_body', z.prettifyError(parsed.error));
    return acted(c, await actions.setGrantCap(id, parsed.data.maxGrants, viaOf(c)), () => view(id));
  });

  app.post('/api/tasks/:id/resume', async (c) => {
    const id = idParam(c);
    if (id === null) return problem(c, 404, 'not_found', 'no such Task');
    const parsed = postResume.safeParse(await jsonBody(c));
    if (!parsed.success) return problem(c, 400, 'invalid_body', z.prettifyError(parsed.error));
    const r = await actions.resume(id, parsed.data.message, viaOf(c));
    return acted(c, r, async () => {
      const { tokenHash: _hidden, ...visible } = (await ledger.getRun(r.kind === 'done' ? r.run!.id : 0))!;
      return visible;
    });
  });

  app.put('/api/tasks/:id/loop', async (c) => {
    const id = idParam(c);
    if (id === null) return problem(c, 404, 'not_found', 'no such Task');
    const parsed = putLoop.safeParse(await jsonBody(c));
    if (!parsed.success) return problem(c, 400, 'invalid_body', z.prettifyError(parsed.error));
    return acted(c, await actions.setLoop(id, parsed.data.on, viaOf(c)), () => view(id));
  });

  app.put('/api/tasks/:id/parked', async (c) => {
    const id = idParam(c);
    if (id === null) return problem(c, 404, 'not_found', 'no such Task');
    const parsed = putParked.safeParse(await jsonBody(c));
    if (!parsed.success) return problem(c, 400, 'invalid_body', z.prettifyError(parsed.error));
    return acted(c, await actions.setParked(id, parsed.data.parked, viaOf(c)), () => view(id));
  });

  app.post('/api/runs/:id/cancel', async (c) => {
    const id = idParam(c);
    if (id === null) return problem(c, 404, 'not_found', 'no such run');
    return acted(c, await actions.cancelRun(id, viaOf(c)), async () => {
      const { tokenHash: _hidden, ...visible } = (await ledger.getRun(id))!;
      return visible;
    });
  });

  // G1/P4: a person sends a given-up notice delivery again (its tries counted afresh).
  app.post('/api/outbox/:id/resend', async (c) => {
    const id = idParam(c);
    if (id === null) return problem(c, 404, 'not_found', 'no such notice delivery');
    return acted(c, await actions.resendNotice(id, viaOf(c)), async () => ({
      deliveries: await ledger
        .listOutbox({ states: ['pending'], limit: 500 })
        .then((d) => d.filter((x) => x.id === id)),
    }));
  });

  app.get('/api/deliveries', async (c) => {
    const q = deliveriesQuery.safeParse(c.req.query());
    if (!q.success) return problem(c, 400, 'invalid_query', z.prettifyError(q.error));
    const decisions = await ledger.listDecisions({
      taskId: q.data.taskId,
      deliveryId: q.data.delivery,
      limit: q.data.limit,
      beforeId: q.data.before,
    });
    return c.json({ decisions });
  });

  app.get('/api/stop', async (c) => {
    try {
      return c.json({ stopped: await ledger.readStopFlag() });
    } catch {
      return c.json({ stopped: null, error: 'unreadable' }, 503);
    }
  });

  app.put('/api/stop', async (c) => {
    const parsed = putStop.safeParse(await jsonBody(c));
    if (!parsed.success) return problem(c, 400, 'invalid_body', z.prettifyError(parsed.error));
    await actions.setGlobalStop(parsed.data.stopped, viaOf(c));
    deps.logger.warn({ stopped: parsed.data.stopped }, 'global stop flag written');
    return c.json({ stopped: parsed.data.stopped });
  });

  app.get('/api/pull-requests/:owner/:repo/:number/checks', async (c) => {
    const parsed = prChecksRequest.safeParse({ ...c.req.param(), ...c.req.query() });
    if (!parsed.success) return problem(c, 400, 'invalid_query', z.prettifyError(parsed.error));
    if (!deps.prChecks) {
      return problem(
        c,
        503,
        'github_not_configured',
        'pr checks needs GitHub credentials: set GITHUB_TOKEN, or APP_ID with PRIVATE_KEY',
      );
    }
    const { owner, repo, number, failing, logLines } = parsed.data;
    try {
      return c.json(
        await deps.prChecks({ repository: `${owner}/${repo}`, number, failingOnly: failing === 'true', logLines }),
      );
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      if (err.status === 404)
        return problem(
          c,
          404,
          'not_found',
          `GitHub has no pull request ${owner}/${repo}#${number} these credentials can see`,
        );
      return problem(c, 502, 'github_refused', `${err.host} answered ${err.status}: ${err.message}`);
    }
  });

  // --- /api/run/*: the agent's ops (SPEC M3, I2, K6, J1), bound by the run token to its own run ---

  /** Answers an AgentOps refusal as `{ error: <code>, message }`; anything else is `unavailable`. */
  const runProblem = (c: Context, err: unknown, what: string) => {
    if (err instanceof AgentOpsError) return runRefusal(c, err.code, err.message);
    deps.logger.error({ err }, `api ${what} failed`);
    return runRefusal(c, 'unavailable', `fixloop could not complete ${what} just now; try again later`);
  };
  const runRefusal = (c: Context, code: AgentOpsErrorCode, message: string) => {
    if (code === 'unauthorized') c.header('WWW-Authenticate', 'Bearer realm="fixloop-run"');
    return c.json({ error: code, message }, AGENT_OPS_ERROR_STATUS[code]);
  };

  /** Resolve the bearer run token and run `op` with its ops; every refusal answered by its code. */
  async function withRun(c: Context, what: string, op: (ops: AgentOps) => Promise<unknown>) {
    const token = bearerOf(c.req.header('authorization'));
    if (!token)
      return runRefusal(c, 'unauthorized', 'send this run\'s FIXLOOP_RUN_TOKEN as "Authorization: Bearer <token>"');
    if (deps.apiToken !== null && sameSecret(token, deps.apiToken)) {
      return runRefusal(
        c,
        'unauthorized',
        "these routes act for one run: use that run's FIXLOOP_RUN_TOKEN, not the API token",
      );
    }
    if (!deps.resolveRun) return runRefusal(c, 'unavailable', 'the run routes are not enabled on this server');
    let ops: AgentOps;
    try {
      ops = await deps.resolveRun(token);
    } catch (err) {
      return runProblem(c, err, 'the run token check');
    }
    try {
      return c.json((await op(ops)) ?? null);
    } catch (err) {
      return runProblem(c, err, what);
    }
  }

  /** The parsed input, or AgentOpsError('invalid') naming what is wrong. */
  function input<T>(schema: z.ZodType<T>, value: unknown): T {
    if (typeof value === 'symbol') throw new AgentOpsError('invalid', 'the body is not JSON');
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new AgentOpsError('invalid', z.prettifyError(parsed.error));
    return parsed.data;
  }

  app.get('/api/run/checks', async (c) =>
    withRun(c, 'checks', (ops) => {
      const { failing, logLines } = input(runChecksQuery, c.req.query());
      return ops.checks({ failingOnly: failing === 'true', logLines });
    }),
  );

  app.post('/api/run/outcome', async (c) =>
    withRun(c, 'the outcome report', async (ops) => {
      const { outcome, reason } = input(runOutcome, await jsonBody(c));
      return ops.reportOutcome(reason === undefined ? { outcome } : { outcome, reason });
    }),
  );

  app.post('/api/run/spend', async (c) =>
    withRun(c, 'the spend report', async (ops) => {
      const { model, sandbox, note } = input(runSpend, await jsonBody(c));
      return ops.reportSpend({
        ...(model !== undefined ? { model } : {}),
        ...(sandbox !== undefined ? { sandbox } : {}),
        ...(note !== undefined ? { note } : {}),
      });
    }),
  );

  app.get('/api/run/state', async (c) => withRun(c, 'the loop state', (ops) => ops.loopState()));

  // Issue 35: the actions runner's workflow trades its CI identity token for its run's token.
  app.post('/api/run/oidc-token', async (c) => {
    const body = await jsonBody(c);
    const parsed = oidcTokenExchange.safeParse(typeof body === 'symbol' ? undefined : body);
    if (!parsed.success) return problem(c, 400, 'invalid', z.prettifyError(parsed.error));
    if (!deps.exchangeWorkflowToken)
      return problem(c, 503, 'unavailable', 'no actions runner is configured: no workflow token is exchanged');
    const r = await deps.exchangeWorkflowToken(parsed.data.token);
    if (r.kind === 'unavailable') return problem(c, 503, 'unavailable', r.message);
    if (r.kind === 'refused') {
      c.header('WWW-Authenticate', 'Bearer realm="fixloop-run"');
      return problem(c, 401, 'unauthorized', `the identity token was refused (${r.reason}): ${r.message}`);
    }
    c.header('Cache-Control', 'no-store');
    return c.json({ runId: r.runId, token: r.token });
  });

  app.notFound((c) => problem(c, 404, 'not_found', `no route for ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => {
    deps.logger.error({ err }, 'api error');
    return c.json({ error: 'internal', message: 'internal error' }, 500);
  });
  return app;
}
