// Times as people read them on the dashboard (issue 33): "3 minutes ago" with the exact instant on
// hover, and a duration in words.

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
export const exact = (iso: string) =>
  Number.isFinite(Date.parse(iso)) ? `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC` : iso;
