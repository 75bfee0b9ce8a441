// The dashboard's pages (SPEC M4), rendered on the server with hono/jsx: the sign-in, the board, a
// Task's timeline and the Inbox. Each action is a plain form carrying the session's CSRF token, so
// the pages work without script; the small client script (client.ts) only refreshes `#live`.
import type { Child, FC } from 'hono/jsx';
import type { BoardFilter, BoardRow, InboxRow, OutboxDelivery } from '../app/ledger-port.js';
import { LOOP_STATES, LOOP_STATE_WORDS } from '../core/loop-state.js';
import { STOP_WHY } from '../core/notice.js';
import { TASK_STATES, type Task } from '../core/types.js';
import { CSRF_FIELD } from './csrf.js';
import { RESUME_MESSAGE_MAX } from '../app/person-actions.js';
import { DEFAULT_MAX_GRANTS, grantAllowance, grantWords, MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import type { TimelineEntry } from './timeline.js';

// One copy of "the web link of this change", shared with the notice sinks (issue 31).
import { changeRef, GITHUB_LINKS, type ChangeLinks } from '../core/change-link.js';
export { changeRef, GITHUB_LINKS, type ChangeLinks };

export interface PageContext {
  csrf: string;
  stopped: boolean | null;
  /** Notice deliveries a sink never took (G1, P4), up to 100. */
  failedDeliveries: number;
  maxAttempts: number;
  /** V4: the configured cap on a person's grants of one more attempt per Task; default 3. */
  maxGrants?: number;
  costCeiling: number | null;
  /** How a Task's pull or merge request is named and linked; default GITHUB_LINKS. */
  links?: ChangeLinks;
  /** Issue 32: what an empty board tells a new install to do next (absent: the steps without the state). */
  onboarding?: Onboarding;
}

/** What is configured so far, for the empty board's first steps. */
export interface Onboarding {
  works: number;
  /** GitHub credentials (an App or a token) are configured. */
  github: boolean;
  /** Where people and GitHub reach fixloop (FIXLOOP_PUBLIC_URL), without a trailing slash. */
  publicUrl: string;
}

const Layout: FC<{ title: string; page: PageContext | null; children?: Child }> = ({ title, page, children }) => (
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
          <nav>
            <a href="/">Board</a> <a href="/inbox">Inbox</a>
          </nav>
          <Action path="/stop" csrf={page.csrf} fields={{ stopped: page.stopped ? '0' : '1' }}>
            {page.stopped ? 'Start the loop everywhere' : 'Stop the loop everywhere'}
          </Action>
          <Action path="/sign-out" csrf={page.csrf}>
            Sign out
          </Action>
          <Action path="/sign-out-everywhere" csrf={page.csrf}>
            Sign out everywhere
          </Action>
        </header>
      ) : null}
      {page?.stopped ? <p class="banner">The global stop flag is set: no Task is resumed.</p> : null}
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
const Action: FC<{ path: string; csrf: string; fields?: Record<string, string>; children?: Child }> = ({
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

export function signInPage(error: string | null) {
  return (
    <Layout title="Sign in" page={null}>
      <h1>Sign in to fixloop</h1>
      {error ? <p class="error">{error}</p> : null}
      <form method="post" action="/sign-in">
        <label>
          API token <input type="password" name="token" autocomplete="current-password" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
    </Layout>
  );
}

const Dot: FC<{ ci: Task['ciState'] }> = ({ ci }) => {
  const word = ci === 'red' ? 'red' : ci === 'pending' ? 'pending' : ci === 'passing' ? 'passing' : 'unknown';
  return <span class={`dot dot-${word}`} title={`CI ${word}`} data-ci={word}></span>;
};

export function boardPage(
  page: PageContext,
  filter: Omit<BoardFilter, 'limit'>,
  rows: BoardRow[],
  nextBefore: number | null,
) {
  const links = page.links ?? GITHUB_LINKS;
  // Q1: a board that lists merge requests says so in its header.
  const anyGitLab = rows.some((r) => links.providerOf(r.repository) === 'gitlab');
  const query = (extra: Record<string, string>) =>
    new URLSearchParams(
      Object.entries({
        state: filter.state ?? '',
        loop: filter.loop ?? '',
        repository: filter.repository ?? '',
        q: filter.search ?? '',
        ...extra,
      }).filter(([, v]) => v !== ''),
    ).toString();
  return (
    <Layout title="Board" page={page}>
      <h1>Board</h1>
      <form method="get" action="/" class="filters">
        <select name="state">
          <option value="">any state</option>
          {TASK_STATES.map((s) => (
            <option value={s} selected={filter.state === s}>
              {s}
            </option>
          ))}
        </select>
        <select name="loop">
          <option value="">any loop state</option>
          {LOOP_STATES.map((s) => (
            <option value={s} selected={filter.loop === s}>
              {LOOP_STATE_WORDS[s]}
            </option>
          ))}
        </select>
        <input name="repository" placeholder="owner/name" value={filter.repository ?? ''} />
        <input name="q" type="search" placeholder="search: #number, repository, branch" value={filter.search ?? ''} />
        <button type="submit">Filter</button>
      </form>
      <div id="live">
        <table class="board">
          <thead>
            <tr>
              <th>{anyGitLab ? 'Pull or merge request' : 'Pull request'}</th>
              <th>CI</th>
              <th>Attempts</th>
              <th>Grants</th>
              {page.costCeiling !== null ? <th>Spend</th> : null}
              <th>Loop</th>
              <th>Last failure</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const ref = changeRef(page.links ?? GITHUB_LINKS, r.repository, r.pullRequest);
              return (
                <tr data-task={String(r.id)}>
                  <td>
                    <a href={`/tasks/${r.id}`}>{ref.label}</a>{' '}
                    <a href={ref.url} class="ext" rel="noreferrer">
                      ↗
                    </a>
                    {r.state !== 'open' ? <span class="state"> ({r.state})</span> : null}
                  </td>
                  <td>
                    <Dot ci={r.ciState} />
                  </td>
                  <td class="attempts">
                    {r.attemptsUsed} of {page.maxAttempts + r.extraAttempts}
                  </td>
                  <GrantsCell page={page} used={r.extraAttempts} own={r.maxGrants} />
                  {page.costCeiling !== null ? (
                    <td class="spend">
                      {r.spend.toFixed(2)} of {page.costCeiling.toFixed(2)}
                    </td>
                  ) : null}
                  <td class={`loop loop-${r.loopState}`}>
                    {LOOP_STATE_WORDS[r.loopState]}
                    {r.triage ? <div class="triage">{r.triage}</div> : null}
                  </td>
                  <td class="failure">{r.lastFailure ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {rows.length === 0 && filtered(filter) ? <p>No Tasks match.</p> : null}
        {rows.length === 0 && !filtered(filter) ? <FirstSteps onboarding={page.onboarding} /> : null}
        {nextBefore !== null ? (
          <p>
            <a href={`/?${query({ before: String(nextBefore) })}`} rel="next">
              Older Tasks
            </a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}

/** A filter or a page is chosen: an empty answer is then "none match", not an empty install. */
const filtered = (f: Omit<BoardFilter, 'limit'>): boolean =>
  Boolean(f.state || f.loop || f.repository || f.search || f.before);

/**
 * Issue 32: the board of an install with no Task yet is its first steps — a Work in the config,
 * GitHub connected (the /setup page), a Task registered or adopted — each marked done when it is.
 */
const FirstSteps: FC<{ onboarding: Onboarding | undefined }> = ({ onboarding: o }) => {
  const base = o?.publicUrl ?? 'http://127.0.0.1:3000';
  const step = (done: boolean | undefined) => (done ? 'step step-done' : 'step');
  return (
    <section class="onboarding" data-onboarding="">
      <h2>No Tasks yet</h2>
      <p>
        fixloop follows the pull requests your agents open, and resumes the agent when CI fails on one. Three steps get
        the first one here:
      </p>
      <ol>
        <li class={step(o && o.works > 0)} data-step="work">
          <strong>Configure a Work.</strong>{' '}
          {o && o.works > 0
            ? `${o.works} configured.`
            : 'None is configured yet, so every delivery and Task registration is refused.'}{' '}
          A Work names the repository its agents' pull requests live in, under <code>works[].repositories</code> with{' '}
          <code>role: data</code>, in a config file that <code>FIXLOOP_CONFIG</code> names (start from{' '}
          <code>fixloop.example.yaml</code>; docs/configuration.md, "Config file"), then restart fixloop:
          <pre>
            {'works:\n  - name: shop\n    account: acme\n    repositories:\n      - { name: acme/shop, role: data }'}
          </pre>
        </li>
        <li class={step(o?.github)} data-step="github">
          <strong>Connect GitHub.</strong> {o?.github ? 'Credentials are configured. ' : ''}
          Create fixloop's GitHub App on the <a href="/setup">setup page</a> (or set <code>APP_ID</code> and{' '}
          <code>PRIVATE_KEY_PATH</code>, or <code>GITHUB_TOKEN</code>), and send its webhook to{' '}
          <code>{`${base}/api/github/webhooks`}</code> with content type <code>application/json</code>.
        </li>
        <li class="step" data-step="task">
          <strong>Register or adopt a Task.</strong> Register the pull request an agent opened through the API (the
          token is the one you signed in with):
          <pre>
            {`curl -X POST ${base}/api/tasks -H "authorization: Bearer $FIXLOOP_API_TOKEN" \\\n  -H 'content-type: application/json' \\\n  -d '{"repository":"acme/shop","pullRequest":12,"branch":"agent/fix-login"}'`}
          </pre>
          or let fixloop adopt them: <code>works[].repositories[].adopt</code> with the agents' branches or authors
          makes each new matching pull request a Task by itself.
        </li>
      </ol>
    </section>
  );
};

/** V4: the board's grants cell: used of the cap, and what is left (the Task's own cap marked). */
const GrantsCell: FC<{ page: PageContext; used: number; own: number | null }> = ({ page, used, own }) => {
  const g = grantAllowance(used, page.maxGrants ?? DEFAULT_MAX_GRANTS, own);
  return (
    <td class={g.left === 0 ? 'grants grants-none-left' : 'grants'} title={grantWords(g)}>
      {g.used} of {g.max}
      {g.own ? ' (this Task)' : ''} · {g.left === 0 ? 'none left' : `${g.left} left`}
    </td>
  );
};

export function timelinePage(
  page: PageContext,
  task: Task,
  entries: TimelineEntry[],
  attemptsUsed: number,
  /** V4: an attempt whose run a restart interrupted waits to be offered again (never shown as idle). */
  interrupted = false,
) {
  const stopped = task.noticeAt !== null;
  const grants = grantAllowance(task.extraAttempts, page.maxGrants ?? DEFAULT_MAX_GRANTS, task.maxGrants);
  const ref = changeRef(page.links ?? GITHUB_LINKS, task.repository, task.pullRequest);
  return (
    <Layout title={ref.label} page={page}>
      <h1>
        {ref.label}{' '}
        <a href={ref.url} rel="noreferrer">
          ↗
        </a>
      </h1>
      {/* Outside #live, so a live refresh never wipes a message being typed. */}
      <form method="post" action={`/tasks/${task.id}/resume`} class="resume">
        <input type="hidden" name={CSRF_FIELD} value={page.csrf} />
        <label>
          Resume the agent with a message{' '}
          <textarea name="message" rows={2} cols={60} maxlength={RESUME_MESSAGE_MAX} required></textarea>
        </label>
        <button type="submit">Resume with this message</button>
      </form>
      <div id="live">
        <p class="facts">
          <Dot ci={task.ciState} /> {task.state} · branch {task.branch} · {attemptsUsed} of{' '}
          {page.maxAttempts + task.extraAttempts} attempts · <span class="grants">{grantWords(grants)}</span>
          {task.loopOff ? ' · loop off' : ''}
          {task.parkedAt ? ' · parked' : ''}
          {stopped && !task.parkedAt ? ' · needs a person' : ''}
          {interrupted && !stopped ? ` · ${LOOP_STATE_WORDS.interrupted}` : ''}
        </p>
        <div class="actions">
          {stopped && !task.parkedAt && grants.left > 0 ? (
            <Action path={`/tasks/${task.id}/approve-one`} csrf={page.csrf}>
              Grant one more attempt
            </Action>
          ) : null}
          {stopped && !task.parkedAt && grants.left === 0 && grants.max < MAX_GRANTS_LIMIT ? (
            // V4: past the cap only a person raising this Task's own cap opens more (recorded).
            <Action path={`/tasks/${task.id}/budget`} csrf={page.csrf} fields={{ maxGrants: String(grants.max + 1) }}>
              No grants left: allow one more grant for this Task
            </Action>
          ) : null}
          <Action path={`/tasks/${task.id}/loop`} csrf={page.csrf} fields={{ on: task.loopOff ? '1' : '0' }}>
            {task.loopOff ? 'Start the loop for this Task' : 'Stop the loop for this Task'}
          </Action>
          <Action path={`/tasks/${task.id}/park`} csrf={page.csrf} fields={{ parked: task.parkedAt ? '0' : '1' }}>
            {task.parkedAt ? 'Unpark' : 'Park'}
          </Action>
        </div>
        <ol class="timeline">
          {entries.map((e) => (
            <li class={`entry entry-${e.kind}`}>
              <time>{e.at}</time> <strong>{e.title}</strong>
              {e.words ? <span class="words"> — {e.words}</span> : null}
              {e.cancellableRunId !== undefined ? (
                <Action path={`/runs/${e.cancellableRunId}/cancel`} csrf={page.csrf}>
                  Cancel this run
                </Action>
              ) : null}
              {e.text ? (
                <details>
                  <summary>text</summary>
                  <pre>{e.text}</pre>
                </details>
              ) : null}
            </li>
          ))}
        </ol>
      </div>
    </Layout>
  );
}

export function inboxPage(
  page: PageContext,
  rows: InboxRow[],
  nextAfter: number | null,
  deliveries: OutboxDelivery[] = [],
) {
  return (
    <Layout title="Inbox" page={page}>
      <h1>Inbox</h1>
      <div id="live">
        {rows.length === 0 ? <p>Nothing needs a person.</p> : null}
        <ol class="inbox">
          {rows.map((n) => (
            <li data-notice={String(n.id)}>
              <a href={`/tasks/${n.taskId}`}>
                {changeRef(page.links ?? GITHUB_LINKS, n.repository, n.pullRequest).label}
              </a>{' '}
              <time>{n.createdAt}</time> — <span class="reason">{STOP_WHY[n.reason] ?? n.reason}</span> (
              {n.attemptsUsed} attempts used{n.parked ? ', parked' : ''})
              <div class="actions">
                {n.parked ? null : (
                  <Action path={`/tasks/${n.taskId}/approve-one`} csrf={page.csrf}>
                    Grant one more attempt
                  </Action>
                )}
                <Action path={`/tasks/${n.taskId}/park`} csrf={page.csrf} fields={{ parked: n.parked ? '0' : '1' }}>
                  {n.parked ? 'Unpark' : 'Park'}
                </Action>
              </div>
            </li>
          ))}
        </ol>
        {nextAfter !== null ? (
          <p>
            <a href={`/inbox?after=${nextAfter}`} rel="next">
              Newer notices
            </a>
          </p>
        ) : null}
        <h2 id="deliveries">Notice deliveries that failed</h2>
        {deliveries.length === 0 ? <p>Every notice reached its sinks.</p> : null}
        <ol class="deliveries">
          {deliveries.map((d) => (
            <li data-delivery={String(d.id)} data-state={d.state}>
              <a href={`/tasks/${d.taskId}`}>
                {d.repository}#{d.pullRequest}
              </a>{' '}
              to <strong>{d.sink}</strong>: {d.state === 'failed' ? 'given up' : `trying again at ${d.nextAt}`} after{' '}
              {d.attempts} {d.attempts === 1 ? 'try' : 'tries'}
              {d.lastError ? (
                <>
                  {' '}
                  — <code>{d.lastError}</code>
                </>
              ) : null}
              {d.state === 'failed' ? (
                <div class="actions">
                  <Action path={`/outbox/${d.id}/resend`} csrf={page.csrf}>
                    Send again
                  </Action>
                </div>
              ) : null}
            </li>
          ))}
        </ol>
      </div>
    </Layout>
  );
}
