// The one line of a failure's text that says what failed (SPEC M4; issue 33): the board's "last failure"
// and the Task page's "failure to fix now" read the same line. Pure.

/** The board shows one line of the last failure, at most this long. */
const LINE_CHARS = 160;
/** A line that names the failure, rather than a check's title ("Tests failed"). */
const SAYS_WHAT_FAILED = /\b(FAIL|FAILED|Error|ERROR|error|AssertionError|expected|panic)\b/;

/** The line of a failure's head that says what failed, else its first non-empty line. */
export function failureLine(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const t = (lines.find((l) => SAYS_WHAT_FAILED.test(l)) ?? lines[0] ?? '').trim();
  return t.length > LINE_CHARS ? `${t.slice(0, LINE_CHARS - 1)}…` : t;
}

/** Issue 33: a few lines from where the failure is named (the Task page's "failure to fix now"). */
export function failureExcerpt(text: string, lines = 3, chars = 400): string {
  const all = text.split('\n').filter((l) => l.trim() !== '');
  const from = Math.max(
    0,
    all.findIndex((l) => SAYS_WHAT_FAILED.test(l)),
  );
  const t = all
    .slice(from, from + lines)
    .map((l) => l.trimEnd())
    .join('\n');
  return t.length > chars ? `${t.slice(0, chars - 1)}…` : t;
}

/** What a red delivery says: the check's name, its output's text and the failing job's page. */
export function redOfDelivery(payload: string): { name: string | null; text: string; url: string | null } | null {
  // A delivery as signed: any shape; only strings are taken from it.
  let p: any;
  try {
    p = JSON.parse(payload);
  } catch {
    return null;
  }
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  const url = (v: unknown) => (typeof v === 'string' && /^https?:\/\//.test(v) ? v : null);
  if (p?.check_run) {
    const r = p.check_run;
    const text = [str(r.output?.title), str(r.output?.summary), str(r.output?.text)].filter((x) => x).join('\n');
    return {
      name: str(r.name),
      text: text || `${r.name ?? 'a check'} failed`,
      url: url(r.html_url) ?? url(r.details_url),
    };
  }
  if (p?.workflow_job) {
    const j = p.workflow_job;
    return { name: str(j.name), text: `${j.name ?? 'a job'} failed`, url: url(j.html_url) };
  }
  if (p?.workflow_run) {
    const w = p.workflow_run;
    return { name: str(w.name), text: `${w.name ?? 'a workflow'} failed`, url: url(w.html_url) };
  }
  if (typeof p?.context === 'string') {
    return { name: p.context, text: str(p.description) ?? `${p.context} failed`, url: url(p.target_url) };
  }
  if (p?.object_kind === 'build' || p?.object_kind === 'pipeline') {
    const name = str(p.build_name) ?? str(p.object_attributes?.name) ?? 'the pipeline';
    return { name, text: `${name} failed`, url: url(p.object_attributes?.url) };
  }
  return null;
}
