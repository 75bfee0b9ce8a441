// The web dashboard (SPEC M4), served by the same process at `/`: sign-in with the API token into a
// server-side session (session.ts, a ledger row), the board, a Task's timeline, the Inbox, a person's actions (the same
// use-case as the API's routes, app/person-actions.ts) and a live stream that tells the page when
// the ledger moved. Nothing but the sign-in page and the static files answers without a session.
import { Hono, type Context, type Next } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { DashboardSessions } from '../app/dashboard-sessions-port.js';
import type { Ledger } from '../app/ledger-port.js';
import type { ActionResult, PersonActions } from '../app/person-actions.js';
import type { Logger } from '../app/ports.js';
import { LOG_EVENTS } from '../core/events.js';
import { seenAs } from '../core/forwarded.js';
import { LOOP_STATES } from '../core/loop-state.js';
import { MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import { TASK_STATES } from '../core/types.js';
import { CLIENT_JS, STYLES_CSS } from './assets.js';
import { CSRF_FIELD, csrfToken, csrfValid, sameOrigin } from './csrf.js';
import type { ChangeLinks } from '../core/change-link.js';
import type { Onboarding, PageContext } from './page-context.js';
import { boardPage } from './board-page.js';
import { inboxPage } from './inbox-page.js';
import { signInPage } from './sign-in-page.js';
import { timelinePage } from './timeline-page.js';
import { createSessionBook, SESSION_COOKIE, SESSION_TTL_MS, sessionKey, type Session } from './session.js';
import { createLiveStreams, pause } from './live-streams.js';
import { clientOfAddress, createSignInThrottle } from './sign-in-throttle.js';
import { taskTimeline, type TaskStory, type TimelineLedger } from './timeline.js';
import { resultsPage } from './results-page.js';
import type { ResultsAnswer } from '../app/results.js';
import { RESULTS_PERIODS, type PeriodInput } from '../core/results.js';
import { checkRuleWordsFor as ruleWordsOf } from '../core/check-rules.js';
import type { Work } from '../core/types.js';

/** The dashboard reads pages of the board and the Inbox, a Task's timeline and the stop flag. */
export type DashboardLedger = Pick<
  Ledger,
  | 'boardPage'
  | 'inboxPage'
  | 'latestDecisionId'
  | 'readStopFlag'
  | 'listOutbox'
  | 'boardSummary'
  | 'stopSetBy'
  | 'runFacts'
  | 'liveMark'
  | 'lastRedEvent'
> &
  TimelineLedger &
  // Issue 36 item 4: the red bases holding pull requests, at the top of the Inbox.
  Partial<Pick<Ledger, 'openBaseReds'>>;

export interface DashboardDeps {
  ledger: DashboardLedger;
  actions: PersonActions;
  logger: Logger;
  /** FIXLOOP_API_TOKEN; null (a loopback install without one) leaves the dashboard closed. */
  apiToken: string | null;
  /** The API's constant-time token comparison (src/http/auth.ts), against the API token. */
  checkToken(given: string): boolean;
  maxAttempts: number;
  costCeiling: number | null;
  /** Issue 33: the currency of every amount (`guards.currency`); default USD. */
  currency?: string;
  /** Issue 33: how many notice sinks are configured (`notices.sinks`); the Inbox says so when there are none. */
  sinkCount?: number;
  /** Issue 36: the Works, whose rule for the failing check the Task page names ("rule: e2e → a person"). */
  works?: readonly Work[];
  /** Issue 33: the Works' repositories, the board's repository filter. */
  repositories?: readonly string[];
  /** V4: the configured cap on a person's grants of one more attempt per Task (TASK_MAX_GRANTS). */
  maxGrants?: number;
  /** How a Task's pull request or GitLab merge request is named and linked; default: all GitHub's, on github.com. */
  links?: ChangeLinks;
  /** Where sessions are kept (the ledger's table, so every replica sees a sign-out). */
  sessions: DashboardSessions;
  /**
   * The public URL (FIXLOOP_PUBLIC_URL), whose origin is accepted on actions next to the request's
   * own; when it is https, the session cookie is always Secure.
   */
  publicUrl?: string | null;
  /** How many proxies in front of a request's peer are believed (FIXLOOP_TRUST_PROXY); default none. */
  proxyTrust?: (peer: string | undefined) => number;
  /** How often the live stream reads the newest decision id. */
  livePollMs?: number;
  /** Hears every refused sign-in (the Prometheus counters, src/metrics/metrics.ts). */
  observeSignIn?: (why: 'failed' | 'throttled') => void;
  /** Issue 32: what an empty board tells a new install (Works configured, GitHub connected). */
  onboarding?: Onboarding;
  nowMs?: () => number;
  /** V1: Results for a period (app/results.ts), the `/results` page; absent, the page says it is not available. */
  results?: (input: PeriodInput) => Promise<ResultsAnswer>;
}

type Env = { Variables: { session: Session } };

/**
 * Issue 36: the checks failing where the Task stands (the head that stopped the loop, else its head),
 * for the rule the Task page names: the failure shown for it, then the green gate's failing checks.
 */
function failingChecksOf(story: TaskStory): Array<string | null> {
  const at = story.notice?.headSha ?? story.task.ciHeadSha;
  const failure = story.failureNow;
  const gate = story.task.gate;
  return [
    ...(failure && failure.headSha === at ? [failure.checkName] : []),
    ...(gate && gate.headSha === at ? gate.failing : []),
  ];
}

const BOARD_PAGE = 50;
const INBOX_PAGE = 50;
const filterQuery = z.object({
  state: z.enum(TASK_STATES).optional().catch(undefined),
  loop: z.enum(LOOP_STATES).optional().catch(undefined),
  repository: z.string().max(200).optional().catch(undefined),
  q: z.string().max(200).optional().catch(undefined),
  before: z.coerce.number().int().positive().optional().catch(undefined),
  /** Issue 33: the board is ordered needs-you first, then by last activity, and paged by offset. */
  offset: z.coerce.number().int().min(0).max(1_000_000).optional().catch(undefined),
});

export function createDashboard(deps: DashboardDeps): { app: Hono<Env>; close(): void } {
  const { ledger, actions } = deps;
  const now = deps.nowMs ?? Date.now;
  const key = deps.apiToken === null ? null : sessionKey(deps.apiToken);
  const livePollMs = deps.livePollMs ?? 1000;
  // The open live streams, capped per session and in all (live-streams.ts), ended on shutdown so the server can close.
  const streams = createLiveStreams();
  // Wrong tokens per client (sign-in-throttle.ts): the socket's peer, or the address a trusted proxy
  // (FIXLOOP_TRUST_PROXY) says it saw; behind an untrusted proxy all its clients share one allowance.
  const throttle = createSignInThrottle();
  const app = new Hono<Env>();

  const book = key === null ? null : createSessionBook(deps.sessions, key, now);
  const trust = deps.proxyTrust ?? (() => 0);
  const publicOrigin = deps.publicUrl ? new URL(deps.publicUrl).origin : null;
  // How the browser addressed this request: a trusted proxy's X-Forwarded-*/Forwarded, else the request itself.
  const seen = (c: Context) => {
    const peer = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
      ?.remoteAddress;
    return seenAs({ url: c.req.url, header: (name) => c.req.header(name), peer, trustedHops: trust(peer) });
  };
  // Secure whenever people use an https address; a forwarded https counts only from a trusted proxy.
  const https = (c: Context) => publicOrigin?.startsWith('https:') === true || seen(c).protocol === 'https:';
  const ownOrigins = (c: Context) => [seen(c).origin, ...(publicOrigin ? [publicOrigin] : [])];

  // Issue 31: no page runs inline code, so scripts, styles and requests come from this origin only;
  // no other site may frame the board (its one-click global stop) or read what is not its type.
  // Referer stays within the origin: an action returns to the page it came from (answered()).
  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
      xFrameOptions: 'DENY',
      referrerPolicy: 'same-origin',
      // The proxy that terminates TLS owns HSTS: fixloop cannot tell which hosts it covers.
      strictTransportSecurity: false,
    }),
  );

  app.get('/static/dashboard.js', (c) => c.body(CLIENT_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/static/dashboard.css', (c) => c.body(STYLES_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));

  app.get('/sign-in', (c) =>
    c.html(signInPage(key ? null : 'The dashboard needs FIXLOOP_API_TOKEN to be set.'), key ? 200 : 503),
  );

  app.post('/sign-in', async (c) => {
    if (!key) return c.html(signInPage('The dashboard needs FIXLOOP_API_TOKEN to be set.'), 503);
    // A client past its allowance of wrong tokens is refused before its token is looked at.
    const client = clientOfAddress(seen(c).client);
    const verdict = throttle.check(client, now());
    if (verdict.kind === 'refuse') {
      deps.observeSignIn?.('throttled');
      const wait = `Too many wrong tokens from here. Try again in ${verdict.retryAfterSeconds} seconds.`;
      return c.html(signInPage(wait), 429, { 'retry-after': String(verdict.retryAfterSeconds) });
    }
    if (!sameOrigin(c.req.header('origin'), ownOrigins(c))) return c.text('cross-site request refused', 403);
    const form = await c.req.parseBody();
    const token = typeof form.token === 'string' ? form.token : '';
    if (!token || !deps.checkToken(token)) {
      deps.observeSignIn?.('failed');
      // One line per wrong token until the client is throttled, then one saying so; none while it waits.
      const { failures, throttledNow } = throttle.failed(client, now());
      deps.logger.warn({ client, failures }, throttledNow ? LOG_EVENTS.SIGN_IN_THROTTLED : LOG_EVENTS.SIGN_IN_REFUSED);
      return c.html(signInPage('That is not the API token.'), 401);
    }
    const { cookie } = await book!.signIn();
    setCookie(c, SESSION_COOKIE, cookie, {
      httpOnly: true,
      sameSite: 'Strict',
      secure: https(c),
      path: '/',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    return c.redirect('/', 303);
  });

  // Every other dashboard path needs the session; a POST also its CSRF token and an own Origin.
  async function guard(c: Context<Env>, next: Next) {
    let session: Session | null;
    try {
      session = book ? await book.read(getCookie(c, SESSION_COOKIE)) : null;
    } catch (err) {
      deps.logger.error({ err }, 'dashboard: the session could not be read');
      return c.text('fixloop cannot read its database just now; try again shortly', 503);
    }
    if (!session) {
      if (c.req.method === 'GET' && c.req.path !== '/events') return c.redirect('/sign-in', 302);
      return c.text('sign in first', 401);
    }
    if (c.req.method === 'POST') {
      if (!sameOrigin(c.req.header('origin'), ownOrigins(c))) return c.text('cross-site request refused', 403);
      const form = await c.req.parseBody();
      if (!csrfValid(key!, session, form[CSRF_FIELD])) return c.text('the form is stale or forged; reload it', 403);
    }
    c.set('session', session);
    c.header('cache-control', 'no-store');
    return next();
  }
  for (const path of [
    '/',
    '/inbox',
    '/tasks/*',
    '/runs/*',
    '/outbox/*',
    '/stop',
    '/events',
    '/sign-out',
    '/sign-out-everywhere',
    '/results',
  ])
    app.use(path, guard);

  async function pageContext(c: Context<Env>): Promise<PageContext> {
    const [stopped, failed, inbox] = await Promise.all([
      ledger.readStopFlag().catch(() => null),
      // G1/P4: a sink that gave up is shown on every page (bounded: the banner only counts to 100).
      ledger.listOutbox({ states: ['failed'], limit: 100 }).catch(() => []),
      // Issue 33: the Inbox badge in the navigation (bounded: it counts to 99).
      ledger.inboxPage({ limit: 99 }).catch(() => null),
    ]);
    // Issue 33: the stop banner says who set the flag and when.
    const stoppedBy = stopped ? await ledger.stopSetBy().catch(() => null) : null;
    return {
      inboxCount: inbox ? inbox.rows.length + (inbox.nextAfter !== null ? 1 : 0) : null,
      stoppedBy,
      currency: deps.currency ?? 'USD',
      ...(deps.sinkCount !== undefined ? { sinkCount: deps.sinkCount } : {}),
      nowMs: now(),
      csrf: csrfToken(key!, c.get('session')),
      stopped,
      failedDeliveries: failed.length,
      maxAttempts: deps.maxAttempts,
      ...(deps.maxGrants !== undefined ? { maxGrants: deps.maxGrants } : {}),
      costCeiling: deps.costCeiling,
      ...(deps.links ? { links: deps.links } : {}),
      ...(deps.onboarding ? { onboarding: deps.onboarding } : {}),
    };
  }

  app.get('/', async (c) => {
    const q = filterQuery.parse(c.req.query());
    const filter = {
      ...(q.state ? { state: q.state } : {}),
      ...(q.loop ? { loop: q.loop } : {}),
      ...(q.repository ? { repository: q.repository } : {}),
      ...(q.q ? { search: q.q } : {}),
      ...(q.before ? { before: q.before } : {}),
    };
    // Issue 33: needs-you first, then by last activity; the summary strip counts every open Task.
    const offset = q.before ? 0 : (q.offset ?? 0);
    const at = new Date(now());
    const dayStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())).toISOString();
    const monthStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString();
    const [page, summary] = await Promise.all([
      ledger.boardPage({ ...filter, limit: BOARD_PAGE, ...(q.before ? {} : { attention: { offset } }) }),
      ledger.boardSummary({ dayStart, monthStart }),
    ]);
    const next = q.before ? null : page.nextBefore !== null ? offset + BOARD_PAGE : null;
    return c.html(
      boardPage(await pageContext(c), filter, page.rows, q.before ? page.nextBefore : null, {
        summary,
        nextOffset: next,
        repositories: deps.repositories ?? [],
      }),
    );
  });

  app.get('/tasks/:id', async (c) => {
    const id = Number(c.req.param('id'));
    const timeline = Number.isSafeInteger(id) && id > 0 ? await taskTimeline(ledger, id) : null;
    if (!timeline) return c.text('no such Task', 404);
    // Issue 33: the header's loop state and spend are the board row's (one Task's, by id).
    const row = await ledger
      .boardPage({ taskId: id, limit: 1 })
      .then((p) => p.rows[0] ?? null)
      .catch(() => null);
    return c.html(
      timelinePage(await pageContext(c), timeline.task, timeline.entries, timeline.attemptsUsed, timeline.interrupted, {
        story: timeline,
        row,
        rule: ruleWordsOf(deps.works, timeline.task.repository, failingChecksOf(timeline)),
      }),
    );
  });

  // V1: does the loop pay? The period comes from the query (`period`, or `from`/`to` dates).
  app.get('/results', async (c) => {
    if (!deps.results) return c.text('Results are not available on this server.', 503);
    const q = z
      .object({
        period: z.enum(RESULTS_PERIODS).optional().catch(undefined),
        from: z.string().max(40).optional().catch(undefined),
        to: z.string().max(40).optional().catch(undefined),
      })
      .parse(c.req.query());
    const asked: PeriodInput = {
      ...(q.period && !q.from && !q.to ? { period: q.period } : {}),
      ...(q.from ? { from: q.from } : {}),
      ...(q.to ? { to: q.to } : {}),
    };
    const answer = await deps.results(asked);
    if (answer.kind === 'invalid') return c.text(`That period cannot be shown: ${answer.message}.`, 400);
    return c.html(resultsPage(await pageContext(c), answer.results, asked));
  });

  app.get('/inbox', async (c) => {
    const after = Number(c.req.query('after'));
    const page = await ledger.inboxPage({
      limit: INBOX_PAGE,
      ...(Number.isSafeInteger(after) && after > 0 ? { after } : {}),
    });
    const deliveries = await ledger.listOutbox({ states: ['failed', 'pending'], limit: 50 });
    const baseReds = ledger.openBaseReds ? await ledger.openBaseReds(INBOX_PAGE) : [];
    return c.html(
      inboxPage(
        await pageContext(c),
        page.rows,
        page.nextAfter,
        // Pending ones only once they have failed a try: a delivery on its way is not news.
        deliveries.filter((d) => d.state === 'failed' || d.lastError !== null),
        baseReds,
      ),
    );
  });

  // The live stream: the newest decision id, read every livePollMs (one indexed max()); the page
  // refreshes its rows when it moves. The session is checked again so a stream ends with it. A
  // session's fifth stream ends its oldest, which is told (`superseded`) so its page stops listening;
  // past the server's total a new one is refused and the page simply does not update by itself.
  app.get('/events', (c) => {
    const session = c.get('session');
    const live = streams.open(session.id);
    if (!live)
      return c.text('Too many pages are listening for updates; reload this one later.', 503, { 'retry-after': '30' });
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => live.end());
      const ended = () => live.signal.aborted || stream.aborted;
      try {
        // Issue 33: a new decision, a new Task (registered with none) or a new run each move the mark.
        let last = await ledger.liveMark();
        await stream.writeSSE({ event: 'ready', data: String(last) });
        while (!ended() && session.expiresAt > now()) {
          await pause(livePollMs, live.signal);
          if (ended()) break;
          const latest = await ledger.liveMark();
          if (latest !== last) {
            last = latest;
            await stream.writeSSE({ event: 'changed', data: latest });
          }
        }
        if (live.signal.reason === 'superseded' && !stream.aborted)
          await stream.writeSSE({ event: 'superseded', data: 'a newer page of this sign-in is listening instead' });
      } catch (err) {
        deps.logger.warn({ err }, 'dashboard live stream ended');
      } finally {
        live.end();
      }
    });
  });

  /** After an action: back to the page it came from (only ever a path of this site), or its refusal. */
  const answered = (c: Context<Env>, r: ActionResult) => {
    if (r.kind === 'not_found') return c.text(r.message, 404);
    if (r.kind === 'conflict') return c.text(r.message, 409);
    if (r.kind === 'unavailable') return c.text(r.message, 503);
    const referer = c.req.header('referer');
    let back = '/';
    try {
      const u = referer ? new URL(referer) : null;
      if (u && ownOrigins(c).includes(u.origin)) back = u.pathname + u.search;
    } catch {
      // a malformed Referer: back to the board
    }
    return c.redirect(back, 303);
  };
  const idOf = (c: Context<Env>) => {
    const n = Number(c.req.param('id'));
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  };
  const field = async (c: Context<Env>, name: string) => (await c.req.parseBody())[name] === '1';

  app.post('/tasks/:id/approve-one', async (c) => answered(c, await actions.approveOne(idOf(c), 'dashboard')));
  // V4: a person raises (or sets) the Task's own cap on grants; recorded as theirs (set_grant_cap).
  app.post('/tasks/:id/budget', async (c) => {
    const raw = (await c.req.parseBody()).maxGrants;
    const n = typeof raw === 'string' && /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= 0 && n <= MAX_GRANTS_LIMIT))
      return c.text(`maxGrants must be a whole number 0–${MAX_GRANTS_LIMIT}`, 400);
    return answered(c, await actions.setGrantCap(idOf(c), n, 'dashboard'));
  });
  app.post('/tasks/:id/resume', async (c) => {
    const message = (await c.req.parseBody()).message;
    return answered(c, await actions.resume(idOf(c), typeof message === 'string' ? message : '', 'dashboard'));
  });
  app.post('/tasks/:id/loop', async (c) =>
    answered(c, await actions.setLoop(idOf(c), await field(c, 'on'), 'dashboard')),
  );
  app.post('/tasks/:id/park', async (c) =>
    answered(c, await actions.setParked(idOf(c), await field(c, 'parked'), 'dashboard')),
  );
  app.post('/runs/:id/cancel', async (c) => answered(c, await actions.cancelRun(idOf(c), 'dashboard')));
  app.post('/outbox/:id/resend', async (c) => answered(c, await actions.resendNotice(idOf(c), 'dashboard')));
  app.post('/stop', async (c) => answered(c, await actions.setGlobalStop(await field(c, 'stopped'), 'dashboard')));

  // Sign-out ends the session's row, so a copy of the cookie stops working too, on every replica.
  app.post('/sign-out', async (c) => {
    await book!.signOut(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: https(c) });
    return c.redirect('/sign-in', 303);
  });
  // Every session of every browser ends (a cookie that may have leaked, a shared machine).
  app.post('/sign-out-everywhere', async (c) => {
    const ended = await book!.signOutEverywhere();
    deps.logger.info({ sessions: ended }, 'dashboard: a person signed out every session');
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: https(c) });
    return c.redirect('/sign-in', 303);
  });

  return {
    app,
    close() {
      streams.closeAll();
    },
  };
}
