// Connect GitHub from the browser (SPEC V3; decision 0050), in the manner of Probot's setup page:
// GET /setup offers to create fixloop's GitHub App from app.yml (personal account or organisation,
// github.com or an Enterprise Server, a name the person picks); POST /setup/github makes a state,
// bound to this browser by a short-lived signed cookie, and shows the form that posts the manifest
// to GitHub; GitHub sends the browser back to GET /setup/github/callback, which checks the state
// (once), trades the code for the App's credentials (github/setup.ts) and shows the install link
// and the next steps. Open with a dashboard session, or from this machine while no GitHub
// credentials exist at all (and only then).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import type { Child, FC } from 'hono/jsx';
import type { DashboardSessions } from '../app/dashboard-sessions-port.js';
import type { Logger, Random } from '../app/ports.js';
import type {
  AppManifest,
  AppManifestFlow,
  SetupAccount,
  SetupOutcome,
  SetupTarget as GitHubTarget,
} from '../app/app-setup-port.js';
import { seenAs } from '../core/forwarded.js';
import type { StoredAppAbout } from '../config/github-app-files.js';
import { CSRF_FIELD, csrfToken, csrfValid, sameOrigin } from './csrf.js';
import { createSessionBook, SESSION_COOKIE, sessionKey, type Session } from './session.js';

/** The state cookie: scoped to the setup's paths, sent on GitHub's top-level redirect back (Lax). */
export const SETUP_STATE_COOKIE = 'fixloop_setup';
/** How long a started setup waits for GitHub's redirect. */
export const SETUP_STATE_TTL_MS = 10 * 60 * 1000;

export interface SetupDeps {
  /** GitHub's rules and pages of the manifest flow (github/app-manifest.ts GITHUB_MANIFEST_FLOW). */
  flow: AppManifestFlow;
  /** app.yml, parsed: the one manifest. */
  manifest: AppManifest;
  /** FIXLOOP_PUBLIC_URL: the webhook's and the callback's origin. */
  publicUrl: string;
  /** The GitHub fixloop is configured for (GITHUB_API_URL / GHE_HOST), used when no Enterprise Server is typed. */
  github: GitHubTarget;
  /** FIXLOOP_ALLOW_INSECURE_HOSTS: plain-http Enterprise Servers in a lab. */
  allowInsecureHosts: boolean;
  /** The API token (the dashboard's sign-in); null leaves only the loopback opening. */
  apiToken: string | null;
  sessions: DashboardSessions;
  /** Whether fixloop has any GitHub credentials now (environment, or an App stored here): closes the loopback opening. */
  hasCredentials(): boolean;
  /** The App a setup stored, to show again. */
  storedApp(): StoredAppAbout | null;
  /** What the environment sets that a stored App does not replace (told on the pages). */
  environment: { appId: boolean; token: boolean; webhookSecret: boolean };
  /**
   * A setup started on the command line (`fixloop setup github`) with this state, taken once: its
   * GitHub, or null. Its state sits in fixloop's data directory, not in a browser.
   */
  takePendingState?(state: string): GitHubTarget | null;
  /** Trades the code and stores the credentials (github/setup.ts, with its adapters). */
  finish(code: string, target: GitHubTarget): Promise<SetupOutcome>;
  logger: Logger;
  random?: Random;
  /** How many proxies in front of a request's peer are believed (FIXLOOP_TRUST_PROXY). */
  proxyTrust?: (peer: string | undefined) => number;
  nowMs?: () => number;
}

/** What the state cookie carries, signed: the state GitHub must hand back, its expiry, and the GitHub chosen. */
interface StateClaim {
  s: string;
  e: number;
  w: string;
  a: string;
}

export function createSetup(deps: SetupDeps): { app: Hono } {
  const flow = deps.flow;
  const now = deps.nowMs ?? Date.now;
  const random = deps.random ?? { token: (n: number) => randomBytes(n).toString('base64url') };
  const key = deps.apiToken === null ? null : sessionKey(deps.apiToken);
  const book = key === null ? null : createSessionBook(deps.sessions, key, now);
  // The state cookie's signing key: from the API token, so every replica agrees; else this process's own.
  const stateKey =
    deps.apiToken === null
      ? randomBytes(32)
      : createHmac('sha256', deps.apiToken).update('fixloop setup state v1').digest();
  /** States already answered by GitHub's redirect, until they expire: each works once. */
  const used = new Map<string, number>();
  const publicOrigin = new URL(deps.publicUrl).origin;
  const trust = deps.proxyTrust ?? (() => 0);
  const app = new Hono();

  const peerOf = (c: Context) =>
    (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
  const seen = (c: Context) => {
    const peer = peerOf(c);
    return seenAs({ url: c.req.url, header: (n) => c.req.header(n), peer, trustedHops: trust(peer) });
  };
  const https = (c: Context) => publicOrigin.startsWith('https:') || seen(c).protocol === 'https:';

  /**
   * The opening before GitHub is connected: a request from this machine, straight (no proxy's
   * forwarding headers, a loopback Host — so neither a proxy on this host nor a rebound DNS name
   * passes), while fixloop has no GitHub credentials at all.
   */
  const loopbackOpen = (c: Context): boolean => {
    if (deps.hasCredentials()) return false;
    if (!isLoopbackAddress(peerOf(c))) return false;
    if (['x-forwarded-for', 'x-forwarded-host', 'forwarded', 'x-real-ip'].some((h) => c.req.header(h) !== undefined))
      return false;
    const host = (c.req.header('host') ?? '').replace(/:\d+$/, '');
    return isLoopbackAddress(host.replace(/^\[(.*)\]$/, '$1')) || host.toLowerCase() === 'localhost';
  };

  const readSession = async (c: Context): Promise<Session | null> => {
    if (!book) return null;
    try {
      return await book.read(getCookie(c, SESSION_COOKIE));
    } catch (err) {
      deps.logger.error({ err }, 'setup: the session could not be read');
      return null;
    }
  };

  /**
   * The pages' own headers. The form pages keep the browser's default referrer policy, so their POSTs
   * carry an Origin (to fixloop, and to GitHub); the callback's pages send no Referer at all, since
   * their address holds GitHub's code.
   */
  const secure = (c: Context, formTarget: string | null = null, referrer = 'strict-origin-when-cross-origin') => {
    const formAction = ["'self'", ...(formTarget ? [new URL(formTarget).origin] : [])].join(' ');
    c.header(
      'content-security-policy',
      `default-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'; object-src 'none'`,
    );
    c.header('x-frame-options', 'DENY');
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', referrer);
    c.header('cache-control', 'no-store');
  };

  const sign = (claim: StateClaim) => {
    const body = Buffer.from(JSON.stringify(claim)).toString('base64url');
    return `${body}.${createHmac('sha256', stateKey).update(body).digest('base64url')}`;
  };
  const verify = (cookie: string | undefined): StateClaim | null => {
    if (!cookie) return null;
    const [body, mac] = cookie.split('.');
    if (!body || !mac) return null;
    const want = Buffer.from(createHmac('sha256', stateKey).update(body).digest('base64url'));
    const got = Buffer.from(mac);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
    try {
      const claim = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StateClaim;
      return typeof claim.s === 'string' && typeof claim.e === 'number' ? claim : null;
    } catch {
      return null;
    }
  };

  const form = (c: Context, session: Session | null, o: { status?: number; error?: string; values?: FormValues }) => {
    secure(c);
    const values = o.values ?? {
      name: flow.suggestedAppName(
        random
          .token(6)
          .replace(/[^A-Za-z0-9]/g, '')
          .toLowerCase()
          .slice(0, 8),
      ),
      account: 'personal',
      organization: '',
      githubUrl: '', // empty: the GitHub fixloop is configured for (GITHUB_API_URL / GHE_HOST)
    };
    return c.html(
      <SetupForm
        csrf={session && key ? csrfToken(key, session) : null}
        values={values}
        configured={deps.github.webUrl}
        error={o.error ?? null}
        publicUrl={deps.publicUrl}
        stored={deps.storedApp()}
        environment={deps.environment}
        flow={flow}
      />,
      (o.status ?? 200) as 200,
    );
  };

  app.get('/setup', async (c) => {
    const session = await readSession(c);
    if (!session && !loopbackOpen(c)) return c.redirect('/sign-in', 302);
    return form(c, session, {});
  });

  app.post('/setup/github', async (c) => {
    const session = await readSession(c);
    const open = !session && loopbackOpen(c);
    if (!session && !open) return c.text('sign in first', 401);
    if (!sameOrigin(c.req.header('origin'), [seen(c).origin, publicOrigin]))
      return c.text('cross-site request refused', 403);
    const body = await c.req.parseBody();
    if (session && !csrfValid(key!, session, body[CSRF_FIELD]))
      return c.text('the form is stale or forged; reload it', 403);
    const values: FormValues = {
      name: text(body.name).trim(),
      account: body.account === 'organization' ? 'organization' : 'personal',
      organization: text(body.organization).trim(),
      githubUrl: text(body.githubUrl).trim(),
    };
    const target = flow.targetOf(values.githubUrl, deps.github, deps.allowInsecureHosts);
    const problem =
      flow.appNameProblem(values.name) ??
      (values.account === 'organization' ? flow.organizationProblem(values.organization) : null) ??
      (target.kind === 'problem' ? target.problem : null);
    if (problem !== null || target.kind !== 'ok') return form(c, session, { status: 400, error: problem!, values });
    const account: SetupAccount =
      values.account === 'organization' ? { kind: 'organization', name: values.organization } : { kind: 'personal' };
    const state = random.token(24);
    setCookie(
      c,
      SETUP_STATE_COOKIE,
      sign({ s: state, e: now() + SETUP_STATE_TTL_MS, w: target.target.webUrl, a: target.target.apiUrl }),
      {
        httpOnly: true,
        sameSite: 'Lax',
        secure: https(c),
        path: '/setup/github',
        maxAge: Math.floor(SETUP_STATE_TTL_MS / 1000),
      },
    );
    const manifest = flow.manifestFor(deps.manifest, {
      name: values.name,
      publicUrl: deps.publicUrl,
      target: target.target,
    });
    const action = flow.newAppPageUrl(target.target, account, state);
    secure(c, action);
    return c.html(
      <ContinuePage
        action={action}
        manifest={manifest}
        account={account}
        target={target.target}
        warning={flow.unreachableWebhookWarning(deps.publicUrl)}
      />,
    );
  });

  app.get(flow.callbackPath, async (c) => {
    secure(c, null, 'no-referrer');
    const code = c.req.query('code');
    const state = c.req.query('state');
    if (!code || !state)
      return c.html(
        <Refusal title="GitHub did not send a code">
          This address is where GitHub sends your browser after it creates the App, with a code and the setup's state.
          Start from <a href="/setup">the setup page</a>.
        </Refusal>,
        400,
      );
    const claim = verify(getCookie(c, SETUP_STATE_COOKIE));
    for (const [s, expires] of used) if (expires < now()) used.delete(s);
    const fresh = claim !== null && claim.e > now() && safeEqual(claim.s, state) && !used.has(claim.s);
    const pending = fresh ? null : (deps.takePendingState?.(state) ?? null);
    if (pending === null && (!fresh || claim === null)) {
      deps.logger.warn(
        { reason: claim === null ? 'no_state_cookie' : 'state_mismatch_or_used' },
        'setup: a GitHub redirect was refused',
      );
      return c.html(
        <Refusal title="This setup was not started here">
          fixloop did not start this setup in this browser, it took longer than {SETUP_STATE_TTL_MS / 60_000} minutes,
          or its answer was used already — so its code is not traded. Start again from{' '}
          <a href="/setup">the setup page</a>. If you started it on the command line, give that command the whole
          address of this page: <code>fixloop setup github --code '&lt;this address&gt;'</code>.
        </Refusal>,
        403,
      );
    }
    let target: GitHubTarget;
    if (pending !== null) target = pending;
    else {
      used.set(claim!.s, claim!.e); // before the conversion: a second copy of this answer waits for nothing
      target = { webUrl: claim!.w, apiUrl: claim!.a };
    }
    const outcome = await deps.finish(code, target);
    // GitHub unreachable: the code is still good, so the state stays for a reload of this page.
    if (outcome.kind === 'failed' && outcome.reason === 'unreachable' && pending === null) used.delete(claim!.s);
    else if (pending === null) deleteCookie(c, SETUP_STATE_COOKIE, { path: '/setup/github', secure: https(c) });
    if (outcome.kind === 'failed') {
      deps.logger.warn({ reason: outcome.reason }, 'setup: GitHub did not give the App');
      return c.html(<Refusal title="The App's credentials were not stored">{outcome.message}</Refusal>, 502);
    }
    deps.logger.info(
      { appId: outcome.app.id, slug: outcome.app.slug, dir: outcome.dir },
      'setup: GitHub App created and its credentials stored; restart fixloop to use them',
    );
    return c.html(
      <DonePage
        name={outcome.app.name}
        id={outcome.app.id}
        dir={outcome.dir}
        installUrl={outcome.installUrl}
        snippet={outcome.snippet}
        environment={deps.environment}
        warning={flow.unreachableWebhookWarning(deps.publicUrl)}
      />,
    );
  });

  return { app };
}

interface FormValues {
  name: string;
  account: 'personal' | 'organization';
  organization: string;
  githubUrl: string;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const a = address.replace(/^::ffff:/i, '');
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

const Page: FC<{ title: string; children?: Child }> = ({ title, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title} · fixloop</title>
      <link rel="stylesheet" href="/static/dashboard.css" />
    </head>
    <body>
      <header>
        <strong>fixloop</strong>
        <nav>
          <a href="/">Board</a> <a href="/setup">Connect GitHub</a>
        </nav>
      </header>
      <main class="setup">{children}</main>
    </body>
  </html>
);

const Warning: FC<{ text: string | null }> = ({ text }) => (text ? <p class="banner warning">{text}</p> : null);

const EnvironmentNotes: FC<{ environment: SetupDeps['environment'] }> = ({ environment }) => (
  <>
    {environment.appId ? (
      <p class="banner" data-note="app-id">
        APP_ID is set in fixloop's environment, and the environment wins: an App stored here is used only once APP_ID
        and PRIVATE_KEY (or PRIVATE_KEY_PATH) are unset.
      </p>
    ) : null}
    {environment.token ? (
      <p class="banner" data-note="token">
        GITHUB_TOKEN is set: fixloop uses that token before any App. Unset it to act as the App.
      </p>
    ) : null}
    {environment.webhookSecret ? (
      <p class="banner" data-note="webhook-secret">
        WEBHOOK_SECRET is set in fixloop's environment. After a restart, deliveries signed with it or with the new App's
        secret are both accepted; unset it to keep only the App's.
      </p>
    ) : null}
  </>
);

const SetupForm: FC<{
  csrf: string | null;
  values: FormValues;
  /** The web address of the GitHub fixloop is configured for: what an empty Enterprise Server field means. */
  configured: string;
  error: string | null;
  publicUrl: string;
  stored: StoredAppAbout | null;
  environment: SetupDeps['environment'];
  flow: AppManifestFlow;
}> = ({ csrf, values, configured, error, publicUrl, stored, environment, flow }) => (
  <Page title="Connect GitHub">
    <h1>Connect GitHub</h1>
    {stored ? (
      <section class="stored" data-stored-app={String(stored.id)}>
        <p>
          fixloop has a GitHub App: <a href={stored.htmlUrl}>{stored.name}</a> (id {stored.id}
          {stored.owner ? `, on ${stored.owner}` : ''}). <a href={flow.installUrlOf(stored.htmlUrl)}>Install it</a> on
          the repositories fixloop should watch. Creating another App below replaces it here.
        </p>
      </section>
    ) : (
      <p>
        fixloop acts on GitHub as a GitHub App of your own. This page creates it from fixloop's manifest (the
        permissions and events fixloop needs, nothing more), then keeps its id, private key and webhook secret as files
        only fixloop can read.
      </p>
    )}
    <EnvironmentNotes environment={environment} />
    <Warning text={flow.unreachableWebhookWarning(publicUrl)} />
    {error ? (
      <p class="error" role="alert">
        {error}
      </p>
    ) : null}
    <form method="post" action="/setup/github" class="setup-form">
      {csrf ? <input type="hidden" name={CSRF_FIELD} value={csrf} /> : null}
      <label>
        App name{' '}
        <input name="name" value={values.name} required maxlength={34} pattern="[A-Za-z0-9][A-Za-z0-9 ._\-]*" />
      </label>
      <p class="hint">Names are unique across GitHub: keep the suggested one, or pick your own.</p>
      <fieldset>
        <legend>Create it on</legend>
        <label>
          <input type="radio" name="account" value="personal" checked={values.account === 'personal'} /> my personal
          account
        </label>
        <label>
          <input type="radio" name="account" value="organization" checked={values.account === 'organization'} /> the
          organisation{' '}
          <input
            name="organization"
            value={values.organization}
            placeholder="organisation name"
            aria-label="organisation name"
          />
        </label>
      </fieldset>
      <label>
        GitHub Enterprise Server address{' '}
        <input
          name="githubUrl"
          value={values.githubUrl}
          placeholder={configured === flow.publicTarget.webUrl ? 'empty for github.com' : `empty for ${configured}`}
          type="text"
        />
      </label>
      <p class="hint">
        Webhook: <code>{publicUrl}/api/github/webhooks</code>. GitHub sends your browser back to{' '}
        <code>
          {publicUrl}
          {flow.callbackPath}
        </code>
        . Both come from FIXLOOP_PUBLIC_URL.
      </p>
      <button type="submit">Continue</button>
    </form>
  </Page>
);

const ContinuePage: FC<{
  action: string;
  manifest: AppManifest;
  account: SetupAccount;
  target: GitHubTarget;
  warning: string | null;
}> = ({ action, manifest, account, target, warning }) => (
  <Page title="Create the App on GitHub">
    <h1>Create the App on GitHub</h1>
    <p>
      GitHub will show the App <strong>{manifest.name}</strong> on{' '}
      {account.kind === 'organization' ? `the organisation ${account.name}` : 'your personal account'} at{' '}
      {target.webUrl}, asking for these permissions:
    </p>
    <ul class="permissions">
      {Object.entries(manifest.default_permissions).map(([name, level]) => (
        <li>
          {name}: {level}
        </li>
      ))}
    </ul>
    <p>and these events: {manifest.default_events.join(', ')}.</p>
    <Warning text={warning} />
    <form method="post" action={action} id="create-app">
      <input type="hidden" name="manifest" value={JSON.stringify(manifest)} />
      <button type="submit">Create the App on GitHub</button>
    </form>
    <p class="hint">
      After you confirm on GitHub, it sends you back here; fixloop then stores the App's credentials. This must happen
      within ten minutes, in this browser.
    </p>
  </Page>
);

const DonePage: FC<{
  name: string;
  id: number;
  dir: string;
  installUrl: string;
  snippet: string;
  environment: SetupDeps['environment'];
  warning: string | null;
}> = ({ name, id, dir, installUrl, snippet, environment, warning }) => (
  <Page title="GitHub App created">
    <h1>GitHub App created</h1>
    <p data-app-id={String(id)}>
      fixloop's GitHub App <strong>{name}</strong> (id {id}) exists, and its id, private key and webhook secret are
      stored in <code>{dir}</code>, readable by fixloop's user only.
    </p>
    <EnvironmentNotes environment={environment} />
    <Warning text={warning} />
    <h2>Next steps</h2>
    <ol>
      <li>
        <a href={installUrl} id="install-link">
          Install the App
        </a>{' '}
        on the repositories fixloop should watch.
      </li>
      <li>
        Restart fixloop: it reads the App's credentials when it starts. With several replicas, give each the same values
        (APP_ID, PRIVATE_KEY_PATH, WEBHOOK_SECRET_FILE pointing at these files, or your secret store).
      </li>
      <li>
        Add a Work for those repositories to fixloop's config file (FIXLOOP_CONFIG), e.g.:
        <pre>{snippet}</pre>
      </li>
      <li>Open a pull request from your agent's branch and register it as a Task; a red push is then resumed.</li>
    </ol>
  </Page>
);

const Refusal: FC<{ title: string; children?: Child }> = ({ title, children }) => (
  <Page title={title}>
    <h1>{title}</h1>
    <p class="error">{children}</p>
  </Page>
);
