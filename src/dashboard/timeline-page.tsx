// A Task's page (SPEC M4, issue 33): its state in words and what happens next, its timeline, and the
// actions a person may take on it.
import type { BoardRow } from '../app/ledger-port.js';
import { LOOP_STATE_WORDS } from '../core/loop-state.js';
import { STOP_WHY } from '../core/notice.js';
import type { Task } from '../core/types.js';
import { CSRF_FIELD } from './csrf.js';
import { RESUME_MESSAGE_MAX } from '../app/person-actions.js';
import { DEFAULT_MAX_GRANTS, grantAllowance, grantWords, MAX_GRANTS_LIMIT } from '../core/grant-cap.js';
import type { TaskStory, TimelineEntry } from './timeline.js';
import { changeRef } from '../core/change-link.js';
import { GITHUB_LINKS } from '../wiring/change-links.js';
import type { PageContext } from './page-context.js';
import { lasted } from './time-words.js';
import { When, money, Dot, External } from './shown-as.js';
import { Layout, Action } from './layout.js';

/** Issue 33: what the Task page's header knows besides the Task: its story and its board row (loop state, spend). */
export interface TaskExtras {
  story?: TaskStory;
  row?: BoardRow | null;
  /** Issue 36: the Work's rule for the failing check, in words ("rule: e2e → a person"); null when none applies. */
  rule?: string | null;
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
  const gitlab = links.hostOf(task.repository).id === 'gitlab';
  const host = links.hostOf(task.repository).words.name;
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
        {extras.rule ? (
          <p class="check-rule" data-check-rule="">
            {extras.rule}
          </p>
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
