// The Inbox (SPEC M4, G1): the Tasks waiting for a person, with why and what to do, and the notice
// deliveries a sink never took.
import type { BaseRed, InboxRow, OutboxDelivery } from '../app/ledger-port.js';
import { STOP_WHY } from '../core/notice.js';
import { changeRef } from '../core/change-link.js';
import { GITHUB_LINKS } from '../wiring/change-links.js';
import type { PageContext } from './page-context.js';
import { When } from './shown-as.js';
import { Layout, Action } from './layout.js';

export function inboxPage(
  page: PageContext,
  rows: InboxRow[],
  nextAfter: number | null,
  deliveries: OutboxDelivery[] = [],
  baseReds: BaseRed[] = [],
) {
  return (
    <Layout title="Inbox" page={page}>
      <h1>Inbox</h1>
      <div id="live">
        {baseReds.length > 0 ? <BaseRedList reds={baseReds} page={page} /> : null}
        {rows.length === 0 && baseReds.length === 0 ? <p>Nothing needs a person.</p> : null}
        {rows.length > 0 && baseReds.length > 0 ? <h2 id="waiting">Pull requests waiting for you</h2> : null}
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
                {changeRef(page.links ?? GITHUB_LINKS, d.repository, d.pullRequest).label}
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

/** Issue 36 item 4: each red base holding pull requests, told once, with the pull requests it holds. */
function BaseRedList({ reds, page }: { reds: BaseRed[]; page: PageContext }) {
  return (
    <section aria-labelledby="base-reds">
      <h2 id="base-reds">Base branches failing</h2>
      <ol class="inbox base-reds">
        {reds.map((r) => (
          <li data-base-red={String(r.id)}>
            <strong>
              {r.repository} {r.baseRef}
            </strong>{' '}
            <When at={r.openedAt} page={page} /> — <span class="reason">{withCode(r.message)}</span>
            {r.pullRequests.length > 0 ? (
              <div>
                Held:{' '}
                {r.pullRequests.map((n, i) => {
                  const ref = changeRef(page.links ?? GITHUB_LINKS, r.repository, n);
                  return (
                    <>
                      {i > 0 ? ', ' : ''}
                      <a href={ref.url}>{ref.label}</a>
                    </>
                  );
                })}
                {r.issueNumber !== null
                  ? ` · issue ${changeRef(page.links ?? GITHUB_LINKS, r.repository, r.issueNumber).label}`
                  : ''}
              </div>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** A notice's text carries check names and commits in `backticks` (Slack and issues render them); here too. */
function withCode(text: string) {
  const parts = text.split('`');
  if (parts.length % 2 === 0) return text; // an unpaired backtick: the text as it is
  return parts.map((part, i) => (i % 2 === 1 ? <code>{part}</code> : part));
}
