// The Results page (SPEC V1, issue 33): does the loop pay? The figures of a period as numbers first,
// then charts where a person would rather look than read — hand-offs by reason, the checks that cost
// most, time from first red to green — drawn on the server as SVG with a title, a description and the
// numbers beside them (no script, no inline style: classes from assets.ts). Each figure is explained
// in docs/results.md.
import type { FC } from 'hono/jsx';
import type { Results, ResultsFigures } from '../core/results.js';
import { RESULTS_PERIODS, type PeriodInput } from '../core/results.js';
import { STOP_WHY } from '../core/notice.js';
import type { StopReason } from '../core/reasons.js';
import { Layout } from './layout.js';
import type { PageContext } from './page-context.js';

const PERIOD_WORDS: Record<(typeof RESULTS_PERIODS)[number], string> = {
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};

/** A short name for a stop reason on a chart's axis; the long words are in the table beside it. */
const REASON_SHORT: Partial<Record<string, string>> = {
  budget_spent: 'budget spent',
  unchanged_failure: 'same failure again',
  parked: 'parked, no answer',
  dispatch_unconfirmed: 'start unconfirmed',
  agent_unreachable: 'agent never called or pushed',
  agent_needs_person: 'agent waits for a person',
  approval_required: 'needs approval',
  no_ci: 'no CI on new commit',
  interrupted_twice: 'interrupted twice',
  run_timeout: 'ran past its window',
  queue_ejected: 'out of the merge queue',
  thrash_repeat: 'fix repeated',
  thrash_aba: 'fixes alternate',
  forbidden_change: 'forbidden change',
  cost_ceiling: 'cost ceiling',
  wake_cap_window: 'too many wakes',
  wake_cap_since_human: 'wakes since a person',
  check_rule_person: 'check ruled to a person',
  check_rule_spent: "check's attempts spent",
  check_rule_paths: 'fix outside its paths',
  diff_too_large: 'diff too large',
  bot_repeats_findings: 'bot repeats findings',
};

const reasonWords = (r: string) => REASON_SHORT[r] ?? r.replace(/_/g, ' ');
const reasonLong = (r: string) => (STOP_WHY as Record<string, string>)[r as StopReason] ?? reasonWords(r);

export function minutesWords(m: number | null): string {
  if (m === null) return '—';
  if (m < 1) return `${Math.round(m * 60)} s`;
  if (m < 90) return `${Math.round(m)} min`;
  if (m < 48 * 60) return `${Math.floor(m / 60)} h ${Math.round(m % 60)} min`;
  return `${(m / 1440).toFixed(1)} days`;
}

const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);
const num = (x: number | null, digits = 1) => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(digits));
const day = (iso: string) => iso.slice(0, 10);

/** One horizontal bar per item, labelled, its value at the bar's end. */
const Bars: FC<{
  id: string;
  title: string;
  desc: string;
  items: Array<{ label: string; value: number; text: string }>;
}> = ({ id, title, desc, items }) => {
  const max = Math.max(...items.map((i) => i.value), 0);
  const rowH = 26;
  const labelW = 170;
  const barW = 260;
  const width = labelW + barW + 90;
  const height = items.length * rowH + 8;
  return (
    <svg
      class="chart"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      viewBox={`0 0 ${width} ${height}`}
      width={String(width)}
      height={String(height)}
    >
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{desc}</desc>
      {items.map((it, i) => {
        const w = max > 0 ? Math.max(2, Math.round((it.value / max) * barW)) : 2;
        const y = 4 + i * rowH;
        return (
          <g>
            <text class="chart-label" x={String(labelW - 6)} y={String(y + 15)} text-anchor="end">
              {it.label.length > 26 ? `${it.label.slice(0, 25)}…` : it.label}
            </text>
            <rect class="chart-bar" x={String(labelW)} y={String(y + 3)} width={String(w)} height="16" rx="2" />
            <text class="chart-value" x={String(labelW + w + 6)} y={String(y + 15)}>
              {it.text}
            </text>
          </g>
        );
      })}
    </svg>
  );
};

/** Time to green in bins: how many pull requests went green within each span. */
export const TIME_BINS: ReadonlyArray<{ label: string; upTo: number }> = [
  { label: 'under 15 min', upTo: 15 },
  { label: '15–60 min', upTo: 60 },
  { label: '1–4 h', upTo: 240 },
  { label: '4–24 h', upTo: 1440 },
  { label: 'over a day', upTo: Infinity },
];

export function timeBins(samples: readonly number[]): number[] {
  const counts = TIME_BINS.map(() => 0);
  for (const m of samples) counts[TIME_BINS.findIndex((b) => m < b.upTo)]! += 1;
  return counts;
}

const FigureRow: FC<{ name: string; f: ResultsFigures; currency: string }> = ({ name, f, currency }) => (
  <tr>
    <th scope="row" data-label="Name">
      {name}
    </th>
    <td data-label="Pull requests">{f.pullRequests}</td>
    <td data-label="Green, no person">
      {f.greenWithoutPerson} ({pct(f.fixRate)})
    </td>
    <td data-label="Attempts">{f.attempts}</td>
    <td data-label={`Spend (${currency})`}>{f.spend.toFixed(2)}</td>
    <td data-label="Attempts per green">{num(f.attemptsPerGreen)}</td>
    <td data-label={`Spend per green (${currency})`}>{f.spendPerGreen === null ? '—' : f.spendPerGreen.toFixed(2)}</td>
    <td data-label="Median time to green">{minutesWords(f.timeToGreenMinutes.median)}</td>
    <td data-label="Changed by a person">{f.changedByPerson}</td>
  </tr>
);

const FigureTable: FC<{
  caption: string;
  first: string;
  rows: Array<{ name: string; f: ResultsFigures }>;
  currency: string;
}> = ({ caption, first, rows, currency }) => (
  // Issue 33 (axe scrollable-region-focusable): a box that scrolls sideways can be reached by keyboard.
  <div class="table-scroll" tabindex={0} role="region" aria-label={caption}>
    <table class="results">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{first}</th>
          <th scope="col">Pull requests</th>
          <th scope="col">Green, no person</th>
          <th scope="col">Attempts</th>
          <th scope="col">Spend ({currency})</th>
          <th scope="col">Attempts per green</th>
          <th scope="col">Spend per green ({currency})</th>
          <th scope="col">Median time to green</th>
          <th scope="col">Changed by a person</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colspan={9}>Nothing in this period.</td>
          </tr>
        ) : (
          rows.map((r) => <FigureRow name={r.name} f={r.f} currency={currency} />)
        )}
      </tbody>
    </table>
  </div>
);

export function resultsPage(page: PageContext, results: Results & { currency: string }, asked: PeriodInput) {
  const t = results.total;
  const cur = results.currency;
  const bins = timeBins(t.timeToGreenMinutes.samples);
  const costBySpend = results.costliestChecks.some((c) => c.spend > 0);
  const checks = results.costliestChecks.slice(0, 10);
  return (
    <Layout title="Results" page={page}>
      <h1>Results: does the loop pay?</h1>
      <form method="get" action="/results" class="filters period">
        <label for="period">Period</label>
        <select id="period" name="period">
          {RESULTS_PERIODS.map((p) => (
            <option value={p} selected={(asked.period ?? (asked.from || asked.to ? '' : '30d')) === p}>
              {PERIOD_WORDS[p]}
            </option>
          ))}
        </select>
        <button type="submit">Show</button>
      </form>
      <form method="get" action="/results" class="filters period">
        <label for="from">From</label>
        <input id="from" name="from" type="date" value={asked.from ?? ''} />
        <label for="to">To</label>
        <input id="to" name="to" type="date" value={asked.to ?? ''} />
        <button type="submit">Show these dates</button>
      </form>
      <p class="sub" data-period={`${results.period.from}/${results.period.to}`}>
        From {day(results.period.from)} to {day(new Date(Date.parse(results.period.to) - 1).toISOString())} (UTC).
        Amounts in {cur}.
      </p>

      <ul class="summary" aria-label="The period in numbers">
        <li class="count" data-figure="pull-requests">
          <strong>{t.pullRequests}</strong> pull requests the loop worked on
        </li>
        <li class="count" data-figure="green-without-person">
          <strong>{t.greenWithoutPerson}</strong> went green with no person's help ({pct(t.fixRate)})
        </li>
        <li class="count" data-figure="attempts-per-green">
          <strong>{num(t.attemptsPerGreen)}</strong> attempts per green pull request
        </li>
        <li class="count" data-figure="spend-per-green">
          <strong>{t.spendPerGreen === null ? '—' : `${t.spendPerGreen.toFixed(2)} ${cur}`}</strong> spent per green
          pull request ({t.spend.toFixed(2)} {cur} in all)
        </li>
        <li class="count" data-figure="time-to-green">
          <strong>{minutesWords(t.timeToGreenMinutes.median)}</strong> from first red to green (median; 90% within{' '}
          {minutesWords(t.timeToGreenMinutes.p90)})
        </li>
        <li class={`count${t.changedByPerson ? ' count-alert' : ''}`} data-figure="changed-by-person">
          <strong>{t.changedByPerson}</strong> fixes changed by a person within a week
        </li>
      </ul>

      <section class="card" aria-labelledby="handoffs-h">
        <h2 id="handoffs-h">Hand-offs to a person, by reason</h2>
        {t.handOffs.length === 0 ? (
          <p>The loop handed no pull request to a person in this period.</p>
        ) : (
          <div class="chart-pair">
            <Bars
              id="chart-handoffs"
              title="Hand-offs by reason"
              desc={t.handOffs.map((h) => `${reasonWords(h.reason)}: ${h.count}`).join('; ')}
              items={t.handOffs.map((h) => ({ label: reasonWords(h.reason), value: h.count, text: String(h.count) }))}
            />
            <table class="results" data-table="handoffs">
              <thead>
                <tr>
                  <th scope="col">Why the loop stopped</th>
                  <th scope="col">Hand-offs</th>
                </tr>
              </thead>
              <tbody>
                {t.handOffs.map((h) => (
                  <tr>
                    <td>{reasonLong(h.reason)}</td>
                    <td>{h.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section class="card" aria-labelledby="checks-h">
        <h2 id="checks-h">The checks that cost most</h2>
        {checks.length === 0 ? (
          <p>No attempt was made in this period.</p>
        ) : (
          <div class="chart-pair">
            <Bars
              id="chart-checks"
              title={costBySpend ? `Spend by failing check, in ${cur}` : 'Attempts by failing check'}
              desc={checks.map((c) => `${c.check}: ${c.spend.toFixed(2)} ${cur}, ${c.attempts} attempts`).join('; ')}
              items={checks.map((c) => ({
                label: c.check,
                value: costBySpend ? c.spend : c.attempts,
                text: costBySpend ? c.spend.toFixed(2) : String(c.attempts),
              }))}
            />
            <table class="results" data-table="checks">
              <thead>
                <tr>
                  <th scope="col">Failing check</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Spend ({cur})</th>
                  <th scope="col">Pull requests</th>
                </tr>
              </thead>
              <tbody>
                {checks.map((c) => (
                  <tr>
                    <td>{c.check}</td>
                    <td>{c.attempts}</td>
                    <td>{c.spend.toFixed(2)}</td>
                    <td>{c.pullRequests}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section class="card" aria-labelledby="ttg-h">
        <h2 id="ttg-h">Time from first red to green</h2>
        {t.timeToGreenMinutes.samples.length === 0 ? (
          <p>No pull request went green without a person in this period.</p>
        ) : (
          <div class="chart-pair">
            <Bars
              id="chart-ttg"
              title="Pull requests by time from first red to green"
              desc={TIME_BINS.map((b, i) => `${b.label}: ${bins[i]}`).join('; ')}
              items={TIME_BINS.map((b, i) => ({ label: b.label, value: bins[i]!, text: String(bins[i]) }))}
            />
            <p>
              Median {minutesWords(t.timeToGreenMinutes.median)}; 90% within {minutesWords(t.timeToGreenMinutes.p90)};
              over {t.timeToGreenMinutes.samples.length} pull request
              {t.timeToGreenMinutes.samples.length === 1 ? '' : 's'}.
            </p>
          </div>
        )}
      </section>

      <FigureTable
        caption="By repository"
        first="Repository"
        currency={cur}
        rows={results.byRepository.map(({ repository, ...f }) => ({ name: repository, f }))}
      />
      <FigureTable
        caption="By agent"
        first="Agent"
        currency={cur}
        rows={results.byAgent.map(({ agent, ...f }) => ({ name: agent, f }))}
      />
      <FigureTable
        caption="By failing check"
        first="Check"
        currency={cur}
        rows={results.byCheck.map(({ check, ...f }) => ({ name: check, f }))}
      />
      <p class="sub">
        "Green, no person" counts pull requests that went green after their first red with no person's action, resume or
        hand-off in between. "Changed by a person" counts those whose head moved within a week of green with no attempt
        of the loop's: a person's later commit, which may revert or amend the fix.
      </p>
    </Layout>
  );
}
