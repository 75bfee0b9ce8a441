// The dashboard's static client script and stylesheet, held inline so a built copy carries them (no
// bundler, nothing read from disk at run time). The script listens to /events and, when the ledger
// moved, fetches the same page again and swaps its `#live` part: the rows change without a reload.
export const CLIENT_JS = `(() => {
  const parts = () => document.querySelectorAll('#live, [data-live]');
  if (!parts().length || !window.EventSource) return;
  const connection = document.getElementById('connection');
  // Issue 33: a dropped stream says so ("disconnected — reconnecting") until it is back.
  const online = (on) => {
    document.body.dataset.live = on ? 'on' : 'reconnecting';
    if (connection) connection.hidden = on;
  };
  let busy = false;
  let again = false;
  const refresh = async () => {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const res = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (res.redirected || !res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      // Every live part by its id (the summary, the rows, a Task's header and story); the badge too.
      for (const part of parts()) {
        const next = part.id ? doc.getElementById(part.id) : null;
        if (next) part.innerHTML = next.innerHTML;
      }
      const nav = document.querySelector('header nav');
      const nextNav = doc.querySelector('header nav');
      if (nav && nextNav) nav.innerHTML = nextNav.innerHTML;
      document.body.dataset.refreshed = String(Date.now());
    } catch {
      // the server is away: the stream's error says so
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  };
  const events = new EventSource('/events');
  let dropped = false;
  events.addEventListener('changed', refresh);
  events.addEventListener('ready', () => {
    online(true);
    // Back after a drop: what changed meanwhile was never signalled.
    if (dropped) { dropped = false; refresh(); }
  });
  events.onerror = () => {
    if (document.body.dataset.live === 'off') return;
    dropped = true;
    online(false);
  };
  // A newer page of this sign-in took the stream over (at most a few per sign-in): stop listening.
  events.addEventListener('superseded', () => { events.close(); document.body.dataset.live = 'off'; });
})();
`;

export const STYLES_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1f24; }
header { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #f3f4f6; }
header nav { flex: 1; } header nav a { margin-right: .75rem; }
main { padding: 1rem; }
form.action { display: inline; }
.banner { background: #fde68a; margin: 0; padding: .5rem 1rem; }
.error { color: #b91c1c; }
table.board { border-collapse: collapse; width: 100%; }
table.board th, table.board td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e5e7eb; }
.dot { display: inline-block; width: .8rem; height: .8rem; border-radius: 50%; background: #9ca3af; }
.dot-red { background: #dc2626; } .dot-pending { background: #f59e0b; } .dot-passing { background: #16a34a; }
.failure { font-family: ui-monospace, monospace; font-size: 12px; max-width: 40rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.loop-needs_person { color: #b91c1c; font-weight: 600; } .loop-agent_running { color: #1d4ed8; }
.triage { color: #92400e; font-size: 12px; font-weight: 400; }
.timeline li { margin-bottom: .4rem; } .timeline time, .inbox time { color: #6b7280; font-size: 12px; }
pre { white-space: pre-wrap; background: #f9fafb; padding: .5rem; max-height: 20rem; overflow: auto; }
.filters { margin-bottom: 1rem; display: flex; gap: .5rem; }
.onboarding { max-width: 48rem; } .onboarding .step { margin-bottom: .75rem; }
.onboarding .step-done strong::after { content: " ✓ done"; color: #16a34a; }
/* Issue 33: the summary strip, the story, phones (one card per Task below 600px) and named, spaced controls. */
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header { flex-wrap: wrap; }
header details.confirm { position: relative; }
header details.confirm summary { cursor: pointer; padding: .25rem .5rem; border: 1px solid #9ca3af; border-radius: 4px; background: #fff; }
.confirm-body { position: absolute; right: 0; z-index: 2; width: min(22rem, 90vw); background: #fff; border: 1px solid #9ca3af; padding: .5rem .75rem; border-radius: 4px; }
header nav a { white-space: nowrap; }
.badge { margin-left: .25rem; background: #b91c1c; color: #fff; border-radius: 999px; padding: 0 .45rem; font-size: 12px; font-weight: 600; }
.banner-offline { background: #fecaca; }
button, summary { min-height: 2rem; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0; }
header form.action, .actions form.action { display: block; }
.summary { list-style: none; padding: 0; margin: 0 0 1rem; display: flex; flex-wrap: wrap; gap: .5rem; }
.summary .count { background: #f3f4f6; border-radius: 6px; padding: .4rem .75rem; }
.summary .count-alert { background: #fee2e2; }
.summary strong { font-size: 16px; }
.filters { flex-wrap: wrap; }
.sub { color: #4b5563; font-size: 12px; }
.title { font-weight: 400; }
.ci { white-space: nowrap; }
tr.row-needs_person td { background: #fef2f2; }
.card { border: 1px solid #e5e7eb; border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1rem; }
.failure-now h2 { font-size: 15px; margin: .5rem 0 .25rem; }
.failure-line { white-space: pre-wrap; word-break: break-word; }
.resume summary { cursor: pointer; font-weight: 600; }
.resume textarea { display: block; width: 100%; box-sizing: border-box; margin: .25rem 0 .5rem; }
.story-group h3 { font-size: 14px; margin: 1rem 0 .25rem; }
.attempt-facts { color: #4b5563; font-size: 12px; }
details.ids summary { color: #6b7280; font-size: 12px; }
details.ids code { font-size: 12px; word-break: break-all; }
code, .words { overflow-wrap: anywhere; }
pre { overflow-wrap: anywhere; }
@media (max-width: 600px) {
  main { padding: .5rem; }
  header { gap: .5rem; }
  table.board, table.board tbody, table.board tr, table.board td { display: block; width: auto; }
  table.board thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.board tr { border: 1px solid #e5e7eb; border-radius: 8px; margin-bottom: .75rem; padding: .25rem .5rem; }
  table.board td { border: 0; padding: .15rem 0; }
  table.board td::before { content: attr(data-label) ": "; color: #6b7280; font-size: 12px; }
  table.board td.pr::before { content: none; }
  table.board td:empty { display: none; }
  .failure { white-space: normal; max-width: none; overflow-wrap: anywhere; }
  .filters select, .filters input { max-width: 100%; }
  .onboarding pre { font-size: 12px; }
}
/* V1 (results-page.tsx): figures, tables that scroll inside their box, and server-drawn SVG bars. */
.table-scroll { overflow-x: auto; max-width: 100%; margin-bottom: 1rem; }
table.results { border-collapse: collapse; }
table.results caption { text-align: left; font-weight: 600; padding: .25rem 0; }
table.results th, table.results td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e5e7eb; }
.chart-pair { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
svg.chart { max-width: 100%; height: auto; }
svg.chart .chart-bar { fill: #2563eb; }
svg.chart .chart-label, svg.chart .chart-value { fill: #1b1f24; font-size: 12px; }
form.period { align-items: center; }
`;
