// The board (SPEC M4, issue 33): every Task with its CI state, loop state, attempts, grants and spend,
// filtered and paged, and an empty install's first steps.
import type { FC } from 'hono/jsx';
import type { BoardFilter, BoardRow, BoardSummary } from '../app/ledger-port.js';
import { LOOP_STATES, LOOP_STATE_WORDS } from '../core/loop-state.js';
import { TASK_STATES } from '../core/types.js';
import { DEFAULT_MAX_GRANTS, grantAllowance, grantWords } from '../core/grant-cap.js';
import { changeRef } from '../core/change-link.js';
import { GITHUB_LINKS } from '../wiring/change-links.js';
import type { PageContext, Onboarding } from './page-context.js';
import { When, money, Dot, External } from './shown-as.js';
import { Layout } from './layout.js';

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
  const anyGitLab = rows.some((r) => links.hostOf(r.repository).id === 'gitlab');
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
              const host = links.hostOf(r.repository).words.name;
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
