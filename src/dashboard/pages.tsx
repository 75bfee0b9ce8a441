// The dashboard's pages (SPEC M4), rendered on the server with hono/jsx: the sign-in, the board, a
// Task's timeline and the Inbox. Each action is a plain form carrying the session's CSRF token, so
// the pages work without script; the small client script (client.ts) only refreshes `#live`.
import type { Child, FC } from 'hono/jsx';
import type { BoardFilter, BoardRow, BoardSummary, InboxRow, OutboxDelivery } from '../app/ledger-port.js';
import { LOOP_STATES, LOOP_STATE_WORDS } from '../core/loop-state.js';
import { STOP_WHY } from '../core/notice.js';
import { TASK_STATES, type Task } from '../core/types.js';
import { CSRF_FIELD } from './csrf.js';
import { RESUME_MESSAGE_MAX } from '../app/person-actions.js';
import { DEFAULT_MAX_GRANTS, grantAllowance, grantWords, MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import type { TaskStory, TimelineEntry } from './timeline.js';

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
  /** Issue 33: the Inbox badge: Tasks waiting for a person (null: unknown). */
  inboxCount?: number | null;
  /** Issue 33: who set the global stop and when (the newest `stop_all`). */
  stoppedBy?: { at: string; detail: string | null } | null;
  /** Issue 33: the currency every amount is in; default USD. */
  currency?: string;
  /** Issue 33: the notice sinks configured; absent: unknown. */
  sinkCount?: number;
  /** Issue 33: "now", for relative times; default the clock. */
  nowMs?: number;
}

/** Issue 33: "3 minutes ago" from an ISO instant. */
export function ago(iso: string, nowMs: number): string {
  const s = Math.round((nowMs - Date.parse(iso)) / 1000);
  if (!Number.isFinite(s)) return iso;
  if (s < 45) return 'just now';
  const unit = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'} ago`;
  if (s < 90 * 60) return unit(Math.max(1, Math.round(s / 60)), 'minute');
  if (s < 36 * 3600) return unit(Math.round(s / 3600), 'hour');
  return unit(Math.round(s / 86400), 'day');
}

/** A duration in words: "42 s", "3 min 5 s", "1 h 12 min". */
export function lasted(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** The exact instant, for the hover title: "2026-12-04 17:53:01 UTC". */
const exact = (iso: string) =>
  Number.isFinite(Date.parse(iso)) ? `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC` : iso;

/** A relative time with the exact one on hover. */
const When: FC<{ at: string; page: PageContext }> = ({ at, page }) => (
  <time datetime={at} title={exact(at)}>
    {ago(at, page.nowMs ?? Date.now())}
  </time>
);

const money = (n: number, page: PageContext) => `${n.toFixed(2)} ${page.currency ?? 'USD'}`;

/** What is configured so far, for the empty board's first steps. */
export interface Onboarding {
  works: number;
  /** GitHub credentials (an App or a token) are configured. */
  github: boolean;
  /** Where people and GitHub reach fixloop (FIXLOOP_PUBLIC_URL), without a trailing slash. */
  publicUrl: string;
}

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

/** The CI state in words beside its colour (issue 33: never colour alone). */
const CI_WORDS: Record<string, string> = { red: 'red', pending: 'running', passing: 'green', unknown: 'not seen yet' };

const Dot: FC<{ ci: Task['ciState'] }> = ({ ci }) => {
  const word = ci === 'red' ? 'red' : ci === 'pending' ? 'pending' : ci === 'passing' ? 'passing' : 'unknown';
  return (
    <span class="ci">
      <span class={`dot dot-${word}`} data-ci={word} aria-hidden="true"></span>{' '}
      <span class="ci-words">{CI_WORDS[word]}</span>
    </span>
  );
};

/** The "↗" link to the pull request on its host, with a name a screen reader can say. */
const External: FC<{ url: string; label: string; host: string }> = ({ url, label, host }) => (
  <a href={url} class="ext" rel="noreferrer" aria-label={`${label} on ${host}`} title={`${label} on ${host}`}>
    ↗
  </a>
);

/** Extra things the board shows (issue 33): the summary strip, the next page, the repository filter's choices. */
export interface BoardExtras {
  summary?: BoardSummary;
  nextOffset?: number | null;
  repositories?: readonly string[];
}

export function boardPage(
  page: PageContext,
  filter: Omit<BoardFilter, 'limit'>,
  rows: BoardRow[],
  nextBefore: number | null,
  extras: BoardExtras = {},
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
  const repositories = [
    ...new Set([...(extras.repositories ?? []), ...(filter.repository ? [filter.repository] : [])]),
  ];
  const s = extras.summary;
  return (
    <Layout title="Board" page={page}>
      <h1>Board</h1>
      <div id="live-summary" data-live="">
        {s ? (
          <ul class="summary" aria-label="Summary">
            <li data-count="needs-you" class={s.needsYou > 0 ? 'count count-alert' : 'count'}>
              <a href="/?loop=needs_person">
                <strong>{s.needsYou}</strong> need{s.needsYou === 1 ? 's' : ''} you
              </a>
            </li>
            <li data-count="being-fixed" class="count">
              <a href="/?loop=agent_running">
                <strong>{s.beingFixed}</strong> being fixed
              </a>
            </li>
            <li data-count="red-waiting" class="count">
              <strong>{s.redWaiting}</strong> red and waiting
            </li>
            <li data-count="parked-off" class="count">
              <strong>{s.parkedOrOff}</strong> parked or off
            </li>
            <li data-count="spend" class="count">
              <strong data-spend-today={s.spendToday.toFixed(2)}>{money(s.spendToday, page)}</strong> spent today ·{' '}
              <strong data-spend-month={s.spendMonth.toFixed(2)}>{money(s.spendMonth, page)}</strong> this month
            </li>
          </ul>
        ) : null}
      </div>
      <form method="get" action="/" class="filters">
        <select name="state" aria-label="Pull request state">
          <option value="">any state</option>
          {TASK_STATES.map((st) => (
            <option value={st} selected={filter.state === st}>
              {st}
            </option>
          ))}
        </select>
        <select name="loop" aria-label="Loop state">
          <option value="">any loop state</option>
          {LOOP_STATES.map((st) => (
            <option value={st} selected={filter.loop === st}>
              {LOOP_STATE_WORDS[st]}
            </option>
          ))}
        </select>
        <select name="repository" aria-label="Repository">
          <option value="">every repository</option>
          {repositories.map((r) => (
            <option value={r} selected={filter.repository === r}>
              {r}
            </option>
          ))}
        </select>
        <input
          name="q"
          type="search"
          aria-label="Search"
          placeholder="#number, repository, branch"
          value={filter.search ?? ''}
        />
        <button type="submit">Filter</button>
      </form>
      <div id="live" data-live="">
        <table class="board" hidden={rows.length === 0}>
          <thead>
            <tr>
              <th scope="col">{anyGitLab ? 'Pull or merge request' : 'Pull request'}</th>
              <th scope="col">CI</th>
              <th scope="col">Loop</th>
              <th scope="col">Attempts</th>
              <th scope="col">Grants</th>
              {page.costCeiling !== null ? <th scope="col">Spend</th> : null}
              <th scope="col">Last failure</th>
              <th scope="col">Age</th>
              <th scope="col">Last activity</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const ref = changeRef(links, r.repository, r.pullRequest);
              const host = links.providerOf(r.repository) === 'gitlab' ? 'GitLab' : 'GitHub';
              return (
                <tr data-task={String(r.id)} data-loop={r.loopState} class={`row-${r.loopState}`}>
                  <td class="pr" data-label={anyGitLab ? 'Pull or merge request' : 'Pull request'}>
                    <a href={`/tasks/${r.id}`}>{ref.label}</a> <External url={ref.url} label={ref.label} host={host} />
                    {r.state !== 'open' ? <span class="state"> ({r.state})</span> : null}
                    {r.prTitle ? <div class="title">{r.prTitle}</div> : null}
                    <div class="sub">
                      {r.prAuthor ? `by ${r.prAuthor} · ` : ''}
                      {r.branch}
                      {r.work ? ` · ${r.work}` : ''}
                    </div>
                  </td>
                  <td data-label="CI">
                    <Dot ci={r.ciState} />
                  </td>
                  <td class={`loop loop-${r.loopState}`} data-label="Loop">
                    {LOOP_STATE_WORDS[r.loopState]}
                    {r.triage ? <div class="triage">{r.triage}</div> : null}
                  </td>
                  <td class="attempts" data-label="Attempts">
                    {r.attemptsUsed} of {page.maxAttempts + r.extraAttempts}
                  </td>
                  <GrantsCell page={page} used={r.extraAttempts} own={r.maxGrants} />
                  {page.costCeiling !== null ? (
                    <td class="spend" data-label="Spend">
                      {r.spend.toFixed(2)} of {money(page.costCeiling, page)}
                    </td>
                  ) : null}
                  <td class="failure" data-label="Last failure" title={r.lastFailure ?? ''}>
                    {r.lastFailure ?? ''}
                  </td>
                  <td class="age" data-label="Age">
                    <When at={r.createdAt} page={page} />
                  </td>
                  <td class="activity" data-label="Last activity">
                    <When at={r.updatedAt ?? r.createdAt} page={page} />
                  </td>
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
        {extras.nextOffset ? (
          <p>
            <a href={`/?${query({ offset: String(extras.nextOffset) })}`} rel="next">
              More Tasks
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
    <td class={g.left === 0 ? 'grants grants-none-left' : 'grants'} title={grantWords(g)} data-label="Grants">
      {g.used} of {g.max}
      {g.own ? ' (this Task)' : ''} · {g.left === 0 ? 'none left' : `${g.left} left`}
    </td>
  );
};

/** Issue 33: what the Task page's header knows besides the Task: its story and its board row (loop state, spend). */
export interface TaskExtras {
  story?: TaskStory;
  row?: BoardRow | null;
}

/** The Task's state in words, and what happens next (issue 33: no state leaves a person guessing). */
function stateWords(
  task: Task,
  loop: BoardRow['loopState'] | null,
  story: TaskStory | undefined,
  left: number,
): { headline: string; next: string } {
  if (task.state !== 'open')
    return {
      headline: `The pull request is ${task.state}.`,
      next: 'The loop is finished with it; nothing more happens.',
    };
  if (loop === 'off' || task.loopOff || task.skipLabel)
    return {
      headline: 'The loop is off for this Task.',
      next: task.skipLabel
        ? 'The pull request carries fixloop:skip: a red is not sent to the agent until the label is removed.'
        : 'A red is not sent to the agent until someone starts the loop for this Task again.',
    };
  if (task.parkedAt)
    return {
      headline: 'Parked.',
      next: 'Nobody answered the hand-off in time, so the loop will not pick this pull request up on its own. Unpark it to let the loop work on it again.',
    };
  if (task.noticeAt)
    return {
      headline: `Needs a person: ${reasonWordsOf(story) ?? 'the loop stopped'}.`,
      next: 'The loop waits for you: grant one more attempt, resume the agent with a message, or fix the pull request yourself.',
    };
  if (loop === 'interrupted' || story?.interrupted)
    return {
      headline: 'Interrupted by a restart: will be offered again.',
      next: "The agent's run was cut short by a restart; the next start offers the same attempt again, once, at no cost to the budget.",
    };
  if (loop === 'agent_running')
    return { headline: 'The agent is working on it.', next: 'When it finishes, CI runs again on what it pushed.' };
  if (loop === 'awaiting_progress')
    return {
      headline: 'Waiting for the fix to show.',
      next: 'The agent says it pushed a fix; the loop waits for the new commit and its CI.',
    };
  const lastRun = story?.entries.filter((e) => e.kind === 'run').at(-1);
  const cancelled = lastRun?.title.endsWith('cancelled') ?? false;
  if (task.ciState === 'red')
    return {
      headline: cancelled ? 'CI is red; the last run was cancelled.' : 'CI is red.',
      next:
        left > 0
          ? `The loop resumes the agent on the next red (${left} automatic attempt${left === 1 ? '' : 's'} left), or resume it now with a message.`
          : 'No automatic attempt is left: grant one more, or resume the agent with a message.',
    };
  if (task.ciState === 'passing')
    return { headline: 'CI is green.', next: 'Nothing to fix; the loop watches the next commits.' };
  return { headline: 'Waiting for CI.', next: 'The loop acts when a check fails on this pull request.' };
}

const reasonWordsOf = (story: TaskStory | undefined) =>
  story?.notice ? (STOP_WHY[story.notice.reason] ?? story.notice.reason) : null;

export function timelinePage(
  page: PageContext,
  task: Task,
  entries: TimelineEntry[],
  attemptsUsed: number,
  /** V4: an attempt whose run a restart interrupted waits to be offered again (never shown as idle). */
  interrupted = false,
  extras: TaskExtras = {},
) {
  const stopped = task.noticeAt !== null;
  const grants = grantAllowance(task.extraAttempts, page.maxGrants ?? DEFAULT_MAX_GRANTS, task.maxGrants);
  const links = page.links ?? GITHUB_LINKS;
  const ref = changeRef(links, task.repository, task.pullRequest);
  const gitlab = links.providerOf(task.repository) === 'gitlab';
  const host = gitlab ? 'GitLab' : 'GitHub';
  const story = extras.story;
  const budget = page.maxAttempts + task.extraAttempts;
  const loop = extras.row?.loopState ?? (interrupted ? 'interrupted' : null);
  const words = stateWords(
    task,
    loop,
    story ?? (interrupted ? ({ interrupted } as TaskStory) : undefined),
    budget - attemptsUsed,
  );
  const failure = story?.failureNow ?? null;
  const groups = story?.groups ?? [{ head: null, entries }];
  return (
    <Layout title={ref.label} page={page}>
      <h1>
        {ref.label} <External url={ref.url} label={ref.label} host={host} />
        {task.prTitle ? <span class="title"> {task.prTitle}</span> : null}
      </h1>
      {task.prAuthor ? <p class="sub">Opened by {task.prAuthor}</p> : null}
      <section class="card head" id="live-head" data-live="" aria-label="Where this Task stands">
        <p class="state-words" data-loop={loop ?? ''}>
          <strong>{words.headline}</strong> <span class="next">{words.next}</span>
        </p>
        <p class="facts">
          CI <Dot ci={task.ciState} /> · branch <code>{task.branch}</code>
          {task.ciHeadSha ? (
            <>
              {' '}
              · head <code title={task.ciHeadSha}>{task.ciHeadSha.slice(0, 7)}</code>
            </>
          ) : null}{' '}
          · {attemptsUsed} of {budget} attempts · <span class="grants">{grantWords(grants)}</span>
          {extras.row && extras.row.spend > 0 ? ` · spent ${money(extras.row.spend, page)}` : ''}
          {task.loopOff ? ' · loop off' : ''}
          {task.parkedAt ? ' · parked' : ''}
          {stopped && !task.parkedAt ? ' · needs a person' : ''}
          {interrupted && !stopped ? ` · ${LOOP_STATE_WORDS.interrupted}` : ''} · registered{' '}
          <When at={task.createdAt} page={page} />
        </p>
        {failure ? (
          <div class="failure-now" data-failure-now="">
            <h2>{failure.stopping ? 'The failure that stopped the loop' : 'The failure to fix now'}</h2>
            <p>
              {failure.checkName ? <strong>{failure.checkName}: </strong> : null}
              <code class="failure-line">{failure.line}</code>
              {failure.headSha ? <span class="sub"> on commit {failure.headSha.slice(0, 7)}</span> : null}
            </p>
            <p>
              <a
                href={failure.url ?? (gitlab ? `${ref.url}/pipelines` : `${ref.url}/checks`)}
                rel="noreferrer"
                class="job-link"
              >
                See the failing job on {host}
              </a>
            </p>
          </div>
        ) : null}
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
          {story?.runningRunId ? (
            <Action path={`/runs/${story.runningRunId}/cancel`} csrf={page.csrf}>
              Cancel the agent's run
            </Action>
          ) : null}
          <Action path={`/tasks/${task.id}/loop`} csrf={page.csrf} fields={{ on: task.loopOff ? '1' : '0' }}>
            {task.loopOff ? 'Start the loop for this Task' : 'Stop the loop for this Task'}
          </Action>
          <Action path={`/tasks/${task.id}/park`} csrf={page.csrf} fields={{ parked: task.parkedAt ? '0' : '1' }}>
            {task.parkedAt ? 'Unpark' : 'Park'}
          </Action>
        </div>
      </section>
      {/* Outside the live parts, so a live refresh never wipes a message being typed. */}
      <details class="resume card">
        <summary>Resume the agent with a message…</summary>
        <form method="post" action={`/tasks/${task.id}/resume`}>
          <input type="hidden" name={CSRF_FIELD} value={page.csrf} />
          <label for="resume-message">What the agent should do (it reads this as its prompt)</label>
          <textarea id="resume-message" name="message" rows={3} maxlength={RESUME_MESSAGE_MAX} required></textarea>
          <button type="submit">Resume with this message</button>
        </form>
      </details>
      <div id="live" data-live="">
        <h2>The story</h2>
        {groups.map((g) => (
          <section class="story-group" data-head={g.head ?? ''}>
            <h3>
              {g.head ? (
                <>
                  Commit <code title={g.head}>{g.head.slice(0, 7)}</code>
                </>
              ) : (
                'Before any red'
              )}
            </h3>
            <ol class="timeline">
              {g.entries.map((e) => (
                <li class={`entry entry-${e.kind}`}>
                  <When at={e.at} page={page} /> <strong>{e.title}</strong>
                  {e.words ? <span class="words"> — {e.words}</span> : null}
                  {e.facts ? (
                    <div class="attempt-facts">
                      started <When at={e.facts.start} page={page} />
                      {e.facts.durationMs !== null ? ` · took ${lasted(e.facts.durationMs)}` : ' · still going'}
                      {e.facts.spend !== null && e.facts.spend > 0 ? ` · spent ${money(e.facts.spend, page)}` : ''}
                    </div>
                  ) : null}
                  {e.cancellableRunId !== undefined ? (
                    <Action path={`/runs/${e.cancellableRunId}/cancel`} csrf={page.csrf}>
                      Cancel this run
                    </Action>
                  ) : null}
                  {e.text ? (
                    <details>
                      <summary>
                        {e.kind === 'run' || e.kind === 'registration' ? 'the run log' : 'the full text'}
                      </summary>
                      <pre>{e.text}</pre>
                    </details>
                  ) : null}
                  {e.ids ? (
                    <details class="ids">
                      <summary>details</summary>
                      <code>{e.ids}</code>
                    </details>
                  ) : null}
                </li>
              ))}
            </ol>
          </section>
        ))}
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
              <When at={n.createdAt} page={page} /> — <span class="reason">{STOP_WHY[n.reason] ?? n.reason}</span> (
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
        {page.sinkCount === 0 ? (
          <p>
            No notice sinks are configured, so notices are shown here only. To have them reach Slack or a webhook, add
            one under <code>notices.sinks</code> (docs/configuration.md).
          </p>
        ) : deliveries.length === 0 ? (
          <p>Every notice reached its sinks.</p>
        ) : null}
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
