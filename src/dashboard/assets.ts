// The dashboard's static client script and stylesheet, held inline so a built copy carries them (no
// bundler, nothing read from disk at run time). The script listens to /events and, when the ledger
// moved, fetches the same page again and swaps its `#live` part: the rows change without a reload.
export const CLIENT_JS = `(() => {
  const live = () => document.getElementById('live');
  if (!live() || !window.EventSource) return;
  let busy = false;
  const refresh = async () => {
    if (busy) return;
    busy = true;
    try {
      const res = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (res.redirected || !res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const next = doc.getElementById('live');
      if (next) live().innerHTML = next.innerHTML;
      document.body.dataset.refreshed = String(Date.now());
    } finally {
      busy = false;
    }
  };
  const events = new EventSource('/events');
  events.addEventListener('changed', refresh);
  events.addEventListener('ready', () => { document.body.dataset.live = 'on'; });
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
`;
