// The frame every dashboard page shares (SPEC M4): the header with the stop and the Inbox badge, the
// warnings a person must see on every page, and the one kind of action — a POST form with the CSRF
// token, so the pages work without script.
import type { Child, FC } from 'hono/jsx';
import { CSRF_FIELD } from './csrf.js';
import type { PageContext } from './page-context.js';
import { When } from './shown-as.js';

export const Layout: FC<{ title: string; page: PageContext | null; children?: Child }> = ({
  title,
  page,
  children,
}) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title} · fixloop</title>
      <link rel="stylesheet" href="/static/dashboard.css" />
      {page ? <script src="/static/dashboard.js" defer></script> : null}
    </head>
    <body>
      {page ? (
        <header>
          <strong>fixloop</strong>
          <nav aria-label="Pages">
            <a href="/">Board</a>{' '}
            <a href="/inbox">
              Inbox
              {page.inboxCount ? (
                <span class="badge" data-inbox-count={String(page.inboxCount)}>
                  {' '}
                  {page.inboxCount > 99 ? '99+' : page.inboxCount}
                  <span class="sr-only"> waiting for a person</span>
                </span>
              ) : null}
            </a>{' '}
            <a href="/results">Results</a>
          </nav>
          {page.stopped ? (
            <Action path="/stop" csrf={page.csrf} fields={{ stopped: '0' }}>
              Start the loop everywhere
            </Action>
          ) : (
            // Issue 33: the global stop asks first (a second button behind a disclosure, no script).
            <details class="confirm">
              <summary>Stop the loop everywhere…</summary>
              <div class="confirm-body">
                <p>No Task's agent is resumed until someone starts the loop again. Runs already going finish.</p>
                <Action path="/stop" csrf={page.csrf} fields={{ stopped: '1' }}>
                  Yes, stop the loop everywhere
                </Action>
              </div>
            </details>
          )}
          <Action path="/sign-out" csrf={page.csrf}>
            Sign out
          </Action>
          <Action path="/sign-out-everywhere" csrf={page.csrf}>
            Sign out everywhere
          </Action>
        </header>
      ) : null}
      {page ? (
        <p id="connection" class="banner banner-offline" role="status" hidden>
          Disconnected — reconnecting. What you see may be out of date.
        </p>
      ) : null}
      {page?.stopped ? (
        <p class="banner" data-stopped="">
          The global stop flag is set: no Task is resumed.
          {page.stoppedBy ? (
            <>
              {' '}
              Set by {page.stoppedBy.detail?.match(/^a person \(([^)]*)\)/)?.[0] ?? 'a person'},{' '}
              <When at={page.stoppedBy.at} page={page} />.
            </>
          ) : null}
        </p>
      ) : null}
      {page && page.failedDeliveries > 0 ? (
        <p class="banner" data-failed-deliveries={String(page.failedDeliveries)}>
          {page.failedDeliveries === 100 ? '100 or more' : page.failedDeliveries} notice{' '}
          {page.failedDeliveries === 1 ? 'delivery' : 'deliveries'} failed:{' '}
          <a href="/inbox#deliveries">see the Inbox</a>.
        </p>
      ) : null}
      <main>{children}</main>
    </body>
  </html>
);

/** One action: a POST form with the CSRF token and where to come back to. */
export const Action: FC<{ path: string; csrf: string; fields?: Record<string, string>; children?: Child }> = ({
  path,
  csrf,
  fields = {},
  children,
}) => (
  <form method="post" action={path} class="action">
    <input type="hidden" name={CSRF_FIELD} value={csrf} />
    {Object.entries(fields).map(([k, v]) => (
      <input type="hidden" name={k} value={v} />
    ))}
    <button type="submit">{children}</button>
  </form>
);
