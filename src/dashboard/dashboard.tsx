// The web dashboard (SPEC M4), served by the same process at `/`: sign-in with the API token into a
// signed session cookie, the board, a Task's timeline, the Inbox, a person's actions (the same
// use-case as the API's routes, app/person-actions.ts) and a live stream that tells the page when
// the ledger moved. Nothing but the sign-in page and the static files answers without a session.
import { Hono, type Context, type Next } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { Ledger } from '../app/ledger-port.js';
import type { ActionResult, PersonActions } from '../app/person-actions.js';
import type { Logger } from '../app/ports.js';
import { LOOP_STATES } from '../core/loop-state.js';
import { TASK_STATES } from '../core/types.js';
import { CLIENT_JS, STYLES_CSS } from './assets.js';
import { CSRF_FIELD, csrfToken, csrfValid, sameOrigin } from './csrf.js';
import { boardPage, inboxPage, signInPage, timelinePage, type ChangeLinks, type PageContext } from './pages.js';
import { issueSession, readSession, SESSION_COOKIE, SESSION_TTL_MS, sessionKey, type Session } from './session.js';
import { taskTimeline, type TimelineLedger } from './timeline.js';

/** The dashboard reads pages of the board and the Inbox, a Task's timeline and the stop flag. */
export type DashboardLedger = Pick<
  Ledger,
  'boardPage' | 'inboxPage' | 'latestDecisionId' | 'readStopFlag' | 'listOutbox'
> &
  TimelineLedger;

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
  /** How a Task's pull request or GitLab merge request is named and linked; default: all GitHub's, on github.com. */
  links?: ChangeLinks;
  /** The public URL, whose origin is accepted on actions next to the request's own. */
  publicUrl?: string | null;
  /** How often the live stream reads the newest decision id. */
  livePollMs?: number;
  nowMs?: () => number;
}

type Env = { Variables: { session: Session } };

const BOARD_PAGE = 50;
const INBOX_PAGE = 50;
const filterQuery = z.object({
  state: z.enum(TASK_STATES).optional().catch(undefined),
  loop: z.enum(LOOP_STATES).optional().catch(undefined),
  repository: z.string().max(200).optional().catch(undefined),
  q: z.string().max(200).optional().catch(undefined),
  before: z.coerce.number().int().positive().optional().catch(undefined),
});

export function createDashboard(deps: DashboardDeps): { app: Hono<Env>; close(): void } {
  const { ledger, actions } = deps;
  const now = deps.nowMs ?? Date.now;
  const key = deps.apiToken === null ? null : sessionKey(deps.apiToken);
  const livePollMs = deps.livePollMs ?? 1000;
  // The open live streams, ended on shutdown so the server can close.
  const streams = new Set<AbortController>();
  const app = new Hono<Env>();

  const https = (c: Context) =>
    new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
  const ownOrigins = (c: Context) => {
    const own = [new URL(c.req.url).origin];
    if (deps.publicUrl) own.push(new URL(deps.publicUrl).origin);
    return own;
  };

  app.get('/static/dashboard.js', (c) => c.body(CLIENT_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/static/dashboard.css', (c) => c.body(STYLES_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));

  app.get('/sign-in', (c) =>
    c.html(signInPage(key ? null : 'The dashboard needs FIXLOOP_API_TOKEN to be set.'), key ? 200 : 503),
  );

  app.post('/sign-in', async (c) => {
    if (!key) return c.html(signInPage('The dashboard needs FIXLOOP_API_TOKEN to be set.'), 503);
    if (!sameOrigin(c.req.header('origin'), ownOrigins(c))) return c.text('cross-site request refused', 403);
    const form = await c.req.parseBody();
    const token = typeof form.token === 'string' ? form.token : '';
    if (!token || !deps.checkToken(token)) return c.html(signInPage('That is not the API token.'), 401);
    const { cookie } = issueSession(key, now());
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
    const session = key ? readSession(key, getCookie(c, SESSION_COOKIE), now()) : null;
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
  for (const path of ['/', '/inbox', '/tasks/*', '/runs/*', '/outbox/*', '/stop', '/events', '/sign-out'])
    app.use(path, guard);

  async function pageContext(c: Context<Env>): Promise<PageContext> {
    const [stopped, failed] = await Promise.all([
      ledger.readStopFlag().catch(() => null),
      // G1/P4: a sink that gave up is shown on every page (bounded: the banner only counts to 100).
      ledger.listOutbox({ states: ['failed'], limit: 100 }).catch(() => []),
    ]);
    return {
      csrf: csrfToken(key!, c.get('session')),
      stopped,
      failedDeliveries: failed.length,
      maxAttempts: deps.maxAttempts,
      costCeiling: deps.costCeiling,
      ...(deps.links ? { links: deps.links } : {}),
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
    const page = await ledger.boardPage({ ...filter, limit: BOARD_PAGE });
    return c.html(boardPage(await pageContext(c), filter, page.rows, page.nextBefore));
  });

  app.get('/tasks/:id', async (c) => {
    const id = Number(c.req.param('id'));
    const timeline = Number.isSafeInteger(id) && id > 0 ? await taskTimeline(ledger, id) : null;
    if (!timeline) return c.text('no such Task', 404);
    const attemptsUsed = timeline.entries.filter((e) => e.kind === 'attempt').length;
    return c.html(timelinePage(await pageContext(c), timeline.task, timeline.entries, attemptsUsed));
  });

  app.get('/inbox', async (c) => {
    const after = Number(c.req.query('after'));
    const page = await ledger.inboxPage({
      limit: INBOX_PAGE,
      ...(Number.isSafeInteger(after) && after > 0 ? { after } : {}),
    });
    const deliveries = await ledger.listOutbox({ states: ['failed', 'pending'], limit: 50 });
    return c.html(
      inboxPage(
        await pageContext(c),
        page.rows,
        page.nextAfter,
        // Pending ones only once they have failed a try: a delivery on its way is not news.
        deliveries.filter((d) => d.state === 'failed' || d.lastError !== null),
      ),
    );
  });

  // The live stream: the newest decision id, read every livePollMs (one indexed max()); the page
  // refreshes its rows when it moves. The session is checked again so a stream ends with it.
  app.get('/events', (c) => {
    const session = c.get('session');
    const abort = new AbortController();
    streams.add(abort);
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => abort.abort());
      try {
        let last = await ledger.latestDecisionId();
        await stream.writeSSE({ event: 'ready', data: String(last) });
        while (!abort.signal.aborted && !stream.aborted && session.expiresAt > now()) {
          await stream.sleep(livePollMs);
          if (abort.signal.aborted || stream.aborted) break;
          const latest = await ledger.latestDecisionId();
          if (latest !== last) {
            last = latest;
            await stream.writeSSE({ event: 'changed', data: String(latest) });
          }
        }
      } catch (err) {
        deps.logger.warn({ err }, 'dashboard live stream ended');
      } finally {
        streams.delete(abort);
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

  app.post('/sign-out', (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: https(c) });
    return c.redirect('/sign-in', 303);
  });

  return {
    app,
    close() {
      for (const s of streams) s.abort();
    },
  };
}
