// The CLI for people (SPEC M1, M4, K5, V1): `tasks`, `inbox`, `runs` and `results` print aligned
// tables (`--json`: the server's JSON answer, unchanged), and a person's actions — approve, park,
// unpark, off, on, cancel, resume with a message, and the Task's cap on grants — go through the same
// API routes as the dashboard's buttons, recorded as a person's action made from the CLI. Each
// action prints one line saying what happened. Exit codes: 0 done, 1 the server refused or failed
// (or could not be reached), 2 a malformed argument, a bad configuration or a missing/refused token.
import { LOOP_STATES, LOOP_STATE_WORDS, type LoopState } from '../core/loop-state.js';
import { MAX_GRANTS_LIMIT, grantWords } from '../core/grant-cap.js';
import { RUN_STATES, TASK_STATES } from '../core/types.js';
import { STOP_SHORT } from '../core/commit-status.js';
import type { StopReason } from '../core/reasons.js';
import { callApi, type ApiResponse } from './api-client.js';
import { resolveConnection, tokenError, type Connection, type ConnectionFlags } from './connection.js';
import { CliError, prettyBody, type CliIo } from './io.js';
import { relativeTime, renderTable, type Column } from './table.js';

/** Marks a request as the CLI's, so a person's action is recorded with via `cli` (person-actions.ts). */
export const CLIENT_HEADER = 'x-fixloop-client';

export interface ServerOptions extends ConnectionFlags {
  json?: boolean;
}

/** One request to the server; 401/403 become the token error naming every source tried. */
export async function request(
  conn: Connection,
  io: CliIo,
  method: 'GET' | 'PUT' | 'POST',
  path: string,
  json?: unknown,
): Promise<ApiResponse> {
  const res = await callApi({
    baseUrl: conn.baseUrl,
    method,
    path,
    json,
    token: conn.token,
    headers: { [CLIENT_HEADER]: 'cli' },
    fetch: io.fetch,
  });
  if (res.status === 401 || (res.status === 403 && conn.token !== null)) throw tokenError(conn, res.status);
  return res;
}

/** A non-2xx answer as the error a person reads: what was asked, what the server said (400: exit 2). */
export function refusal(name: string, method: string, path: string, res: ApiResponse): CliError {
  let message = res.body.trim();
  try {
    const body = JSON.parse(res.body) as { message?: unknown; error?: unknown };
    if (typeof body.message === 'string') message = body.message;
    else if (typeof body.error === 'string') message = body.error;
  } catch {
    // not JSON: the text as it came
  }
  const line = `${method} ${path} answered ${res.status} ${res.statusText}${message ? `: ${message}` : ''}`;
  return new CliError(res.status === 400 ? 2 : 1, line, { command: name });
}

/** JSON of a 2xx answer; a body that is not JSON is the server's fault (exit 1). */
function parsed<T>(res: ApiResponse, what: string): T {
  try {
    return JSON.parse(res.body) as T;
  } catch (err) {
    throw new CliError(1, `${what}: the server's answer is not JSON`, { cause: err });
  }
}

// --- arguments -------------------------------------------------------------------------------------

/** A Task or run id as typed: a positive whole number, else exit 2. */
export function idOf(raw: string, what: 'Task' | 'run'): number {
  const n = /^#?\d{1,9}$/.test(raw.trim()) ? Number(raw.trim().replace('#', '')) : 0;
  if (n < 1) throw new CliError(2, `"${raw}" is not a ${what} id (a positive whole number)`);
  return n;
}

function limitOf(raw: string | undefined, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = /^\d{1,4}$/.test(raw.trim()) ? Number(raw.trim()) : 0;
  if (n < 1 || n > max)
    throw new CliError(2, `--limit must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

function repoOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^[\w.-]+(\/[\w.-]+){1,20}$/.test(raw.trim()))
    throw new CliError(2, `--repo must be owner/name (or a GitLab group/…/project), got ${JSON.stringify(raw)}`);
  return raw.trim().toLowerCase();
}

/** `--state` of `tasks`: a Task's state or a loop state, with dashes or spaces as typed by people. */
function taskStateFilter(raw: string | undefined): { state?: string; loop?: string } {
  if (raw === undefined) return {};
  const s = raw
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if ((TASK_STATES as readonly string[]).includes(s)) return { state: s };
  if ((LOOP_STATES as readonly string[]).includes(s)) return { loop: s };
  throw new CliError(
    2,
    `--state must be one of ${[...TASK_STATES, ...LOOP_STATES].join(', ')} (dashes work too: needs-person), got ${JSON.stringify(raw)}`,
  );
}

function runStateFilter(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const s = raw.trim().toLowerCase();
  if (!(RUN_STATES as readonly string[]).includes(s))
    throw new CliError(2, `--state must be one of ${RUN_STATES.join(', ')}, got ${JSON.stringify(raw)}`);
  return s;
}

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

// --- the lists -------------------------------------------------------------------------------------

interface BoardRowJson {
  id: number;
  repository: string;
  pullRequest: number;
  state: string;
  ciState: string;
  loopState: LoopState;
  attemptsUsed: number;
  attemptsAllowed?: number;
  lastFailure: string | null;
  createdAt?: string;
}

const CI_WORDS: Record<string, string> = {
  red: 'CI red',
  passing: 'CI green',
  pending: 'CI running',
  unknown: 'CI not seen yet',
};

/** The Task's state in words: open with its CI, or done / cancelled. */
function taskWords(r: Pick<BoardRowJson, 'state' | 'ciState'>): string {
  return r.state === 'open' ? `open, ${CI_WORDS[r.ciState] ?? `CI ${r.ciState}`}` : r.state;
}

/** The board's words, one shorter for a column. */
function loopWords(s: LoopState): string {
  return s === 'interrupted' ? 'interrupted: offered again' : (LOOP_STATE_WORDS[s] ?? s);
}

const pr = (r: { repository: string; pullRequest: number }) => `${r.repository}#${r.pullRequest}`;

export interface ListOptions extends ServerOptions {
  repo?: string;
  state?: string;
  limit?: string;
  task?: string;
  period?: string;
}

/** `fixloop tasks`: the board, needs-a-person and every other state, newest first (GET /api/board). */
export async function tasksCommand(opts: ListOptions, io: CliIo): Promise<number> {
  const path = `/api/board${query({
    ...taskStateFilter(opts.state),
    repository: repoOf(opts.repo),
    limit: limitOf(opts.limit, 200, 50),
  })}`;
  const conn = resolveConnection(opts, io.env);
  const res = await request(conn, io, 'GET', path);
  if (!res.ok) throw refusal('tasks', 'GET', path, res);
  if (opts.json) return print(io, prettyBody(res.body));
  const { tasks } = parsed<{ tasks: BoardRowJson[] }>(res, 'tasks');
  if (tasks.length === 0) return print(io, 'No Tasks match.\n');
  const now = io.now();
  const columns: Column<BoardRowJson>[] = [
    { header: 'ID', value: (r) => String(r.id) },
    { header: 'PULL REQUEST', value: pr, max: 40 },
    { header: 'STATE', value: taskWords },
    { header: 'LOOP', value: (r) => loopWords(r.loopState) },
    {
      header: 'ATTEMPTS',
      value: (r) =>
        r.attemptsAllowed === undefined ? `${r.attemptsUsed}` : `${r.attemptsUsed} of ${r.attemptsAllowed}`,
    },
    { header: 'LAST FAILURE', value: (r) => r.lastFailure ?? '—', max: 60 },
    { header: 'AGE', value: (r) => relativeTime(r.createdAt, now) },
  ];
  return print(io, renderTable(columns, tasks));
}

interface InboxRowJson {
  id: number;
  taskId: number;
  repository: string;
  pullRequest: number;
  reason: StopReason;
  headSha: string | null;
  attemptsUsed: number;
  createdAt: string;
  parked: boolean;
}

/** The most Inbox pages read to fill a `--repo` filtered list (the API filters no repository). */
const INBOX_PAGES_MAX = 20;

/** `fixloop inbox`: what needs a person now, oldest first (GET /api/inbox, paged). */
export async function inboxCommand(opts: ListOptions, io: CliIo): Promise<number> {
  const repo = repoOf(opts.repo);
  const limit = limitOf(opts.limit, 200, 50);
  const conn = resolveConnection(opts, io.env);
  const notices: InboxRowJson[] = [];
  let baseReds: BaseRedJson[] = [];
  let after: number | null | undefined;
  let firstBody = '';
  for (let page = 0; page < INBOX_PAGES_MAX && notices.length < limit; page++) {
    const path = `/api/inbox${query({ limit: repo ? 200 : limit, after: after ?? undefined })}`;
    const res = await request(conn, io, 'GET', path);
    if (!res.ok) throw refusal('inbox', 'GET', path, res);
    if (page === 0) firstBody = res.body;
    const answer = parsed<{ notices: InboxRowJson[]; nextAfter: number | null; baseReds?: BaseRedJson[] }>(
      res,
      'inbox',
    );
    if (page === 0)
      baseReds = (answer.baseReds ?? []).filter((b) => repo === undefined || b.repository.toLowerCase() === repo);
    notices.push(...answer.notices.filter((n) => repo === undefined || n.repository.toLowerCase() === repo));
    after = answer.nextAfter;
    if (after === null || after === undefined) break;
  }
  const shown = notices.slice(0, limit);
  if (opts.json)
    return print(io, repo === undefined ? prettyBody(firstBody) : prettyBody(JSON.stringify({ notices: shown })));
  // Issue 36 (decision 0075): the base branches failing, above the notices, as the dashboard's Inbox.
  const bases = baseReds.map(
    (b) =>
      `  ${b.baseRef} of ${b.repository} is failing ${b.checks.join(', ')}; ${b.pullRequests.length} ${b.pullRequests.length === 1 ? 'pull request waits' : 'pull requests wait'} for it to pass\n`,
  );
  const failing = bases.length === 0 ? '' : `Base branches failing:\n${bases.join('')}\n`;
  if (shown.length === 0)
    return print(io, failing ? `${failing}Nothing else needs a person.\n` : 'Nothing needs a person.\n');
  const now = io.now();
  const columns: Column<InboxRowJson>[] = [
    { header: 'TASK', value: (n) => String(n.taskId) },
    { header: 'PULL REQUEST', value: pr, max: 40 },
    {
      header: 'WHY IT STOPPED',
      value: (n) => (n.parked ? 'parked: ' : '') + (STOP_SHORT[n.reason] ?? n.reason),
      max: 50,
    },
    { header: 'ATTEMPTS USED', value: (n) => String(n.attemptsUsed) },
    { header: 'HEAD', value: (n) => (n.headSha ? n.headSha.slice(0, 12) : '—') },
    { header: 'STOPPED', value: (n) => relativeTime(n.createdAt, now) },
  ];
  return print(io, failing + renderTable(columns, shown));
}

/** A failing base branch as GET /api/inbox lists it (the fields shown). */
interface BaseRedJson {
  repository: string;
  baseRef: string;
  checks: string[];
  pullRequests: number[];
}

interface RunJson {
  id: number;
  taskId: number;
  action: 'start' | 'resume';
  autoResume: boolean;
  state: string;
  agentSeenAt: string | null;
  interruptedAt?: string | null;
  createdAt: string;
}

/** `fixloop runs`: the agent runs, newest first (GET /api/runs). */
export async function runsCommand(opts: ListOptions, io: CliIo): Promise<number> {
  const path = `/api/runs${query({
    taskId: opts.task === undefined ? undefined : idOf(opts.task, 'Task'),
    state: runStateFilter(opts.state),
    limit: limitOf(opts.limit, 200, 50),
  })}`;
  const conn = resolveConnection(opts, io.env);
  const res = await request(conn, io, 'GET', path);
  if (!res.ok) throw refusal('runs', 'GET', path, res);
  if (opts.json) return print(io, prettyBody(res.body));
  const { runs } = parsed<{ runs: RunJson[] }>(res, 'runs');
  if (runs.length === 0) return print(io, 'No runs match.\n');
  const now = io.now();
  const columns: Column<RunJson>[] = [
    { header: 'RUN', value: (r) => String(r.id) },
    { header: 'TASK', value: (r) => String(r.taskId) },
    {
      header: 'KIND',
      value: (r) => (r.action === 'start' ? 'start' : r.autoResume ? 'automatic resume' : "a person's resume"),
    },
    { header: 'STATE', value: (r) => (r.interruptedAt ? `${r.state} (interrupted)` : r.state) },
    { header: 'AGENT REACHED FIXLOOP', value: (r) => (r.agentSeenAt ? relativeTime(r.agentSeenAt, now) : 'not yet') },
    { header: 'STARTED', value: (r) => relativeTime(r.createdAt, now) },
  ];
  return print(io, renderTable(columns, runs));
}

/**
 * `fixloop results`: what the loop achieved (V1, GET /api/results). The figures' shape belongs to the
 * server, so the table is generic: one line per figure, one table per list. A server without the
 * route is told plainly (exit 1).
 */
export async function resultsCommand(opts: ListOptions, io: CliIo): Promise<number> {
  const path = `/api/results${query({ period: opts.period, repository: repoOf(opts.repo) })}`;
  const conn = resolveConnection(opts, io.env);
  const res = await request(conn, io, 'GET', path);
  if (res.status === 404 && /no route/.test(res.body))
    throw new CliError(1, `results are not available on this server yet (${conn.baseUrl} has no GET /api/results)`);
  if (!res.ok) throw refusal('results', 'GET', path, res);
  if (opts.json) return print(io, prettyBody(res.body));
  return print(io, figures(parsed<unknown>(res, 'results')));
}

/** A JSON value as people read it: `name  value` lines for figures, a table for each list of records. */
function figures(value: unknown, title = ''): string {
  if (Array.isArray(value)) {
    const records = value.filter((v): v is Record<string, unknown> => isRecord(v));
    if (records.length === 0) return `${title ? `${title}: ` : ''}${value.map(scalar).join(', ') || '—'}\n`;
    const keys = [
      ...new Set(records.flatMap((r) => Object.keys(r).filter((k) => !isRecord(r[k]) && !Array.isArray(r[k])))),
    ];
    const table = renderTable(
      keys.map((k) => ({
        header: words(k).toUpperCase(),
        value: (r: Record<string, unknown>) => scalar(r[k]),
        max: 50,
      })),
      records,
    );
    return `${title ? `\n${title}\n` : ''}${table}`;
  }
  if (!isRecord(value)) return `${title ? `${title}: ` : ''}${scalar(value)}\n`;
  const simple = Object.entries(value).filter(([, v]) => !isRecord(v) && !Array.isArray(v));
  const nested = Object.entries(value).filter(([, v]) => isRecord(v) || Array.isArray(v));
  const width = Math.max(0, ...simple.map(([k]) => words(k).length));
  const lines = simple.map(([k, v]) => `${words(k).padEnd(width)}  ${scalar(v)}\n`).join('');
  return (
    (title && simple.length ? `\n${title}\n` : '') +
    lines +
    nested.map(([k, v]) => figures(v, title ? `${title} · ${words(k)}` : words(k))).join('')
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `greenWithoutPerson` → "green without person". */
const words = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();
function scalar(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(2);
  return typeof v === 'string' ? v : JSON.stringify(v);
}

// --- a person's actions -----------------------------------------------------------------------------

interface TaskViewJson {
  id: number;
  repository?: string;
  pullRequest?: number;
  grants?: { used: number; max: number; left: number; own?: boolean } | null;
}

/** `acme/app#12`, or `Task 12` when the answer does not say. */
const named = (t: TaskViewJson | null, id: number) =>
  t?.repository && t.pullRequest ? `${t.repository}#${t.pullRequest}` : `Task ${id}`;

export type TaskAction = 'approve' | 'park' | 'unpark' | 'off' | 'on';

const TASK_ACTIONS: Record<
  TaskAction,
  {
    method: 'POST' | 'PUT';
    path: (id: number) => string;
    json?: unknown;
    said: (t: TaskViewJson | null, id: number) => string;
  }
> = {
  approve: {
    method: 'POST',
    path: (id) => `/api/tasks/${id}/approve-one`,
    said: (t, id) => `Granted one more attempt on ${named(t, id)}${t?.grants ? ` (${grantWords(t.grants)})` : ''}.`,
  },
  park: {
    method: 'PUT',
    path: (id) => `/api/tasks/${id}/parked`,
    json: { parked: true },
    said: (t, id) => `Parked ${named(t, id)}: it will not re-enter the loop until someone unparks it.`,
  },
  unpark: {
    method: 'PUT',
    path: (id) => `/api/tasks/${id}/parked`,
    json: { parked: false },
    said: (t, id) => `Unparked ${named(t, id)}: the loop may act on it again.`,
  },
  off: {
    method: 'PUT',
    path: (id) => `/api/tasks/${id}/loop`,
    json: { on: false },
    said: (t, id) => `Turned the loop off for ${named(t, id)}: no automatic attempt until it is turned on.`,
  },
  on: {
    method: 'PUT',
    path: (id) => `/api/tasks/${id}/loop`,
    json: { on: true },
    said: (t, id) => `Turned the loop on for ${named(t, id)}.`,
  },
};

/** One of the per-Task switches; `name` is what the person typed (an alias keeps its own name). */
export async function taskActionCommand(
  action: TaskAction,
  rawId: string,
  opts: ServerOptions,
  io: CliIo,
  name: string = action,
): Promise<number> {
  const id = idOf(rawId, 'Task');
  const spec = TASK_ACTIONS[action];
  const path = spec.path(id);
  const conn = resolveConnection(opts, io.env);
  const res = await request(conn, io, spec.method, path, spec.json);
  if (!res.ok) throw refusal(name, spec.method, path, res);
  if (opts.json) return print(io, prettyBody(res.body));
  return print(io, `${spec.said(tryParse<TaskViewJson>(res.body), id)}\n`);
}

/** `fixloop task budget <id> --max-grants <n|configured>` (V4): the Task's own cap on grants. */
export async function budgetCommand(rawId: string, maxGrants: string, opts: ServerOptions, io: CliIo): Promise<number> {
  const id = idOf(rawId, 'Task');
  const text = maxGrants.trim();
  let value: number | null;
  if (text === 'configured') value = null;
  else if (/^\d{1,2}$/.test(text) && Number(text) <= MAX_GRANTS_LIMIT) value = Number(text);
  else throw new CliError(2, `--max-grants must be a whole number 0–${MAX_GRANTS_LIMIT}, or "configured"`);
  const path = `/api/tasks/${id}/budget`;
  const conn = resolveConnection(opts, io.env);
  const res = await request(conn, io, 'PUT', path, { maxGrants: value });
  if (!res.ok) throw refusal('task budget', 'PUT', path, res);
  if (opts.json) return print(io, prettyBody(res.body));
  const t = tryParse<TaskViewJson>(res.body);
  const cap = value === null ? 'the configured cap' : `${value}`;
  return print(
    io,
    `Set the cap on grants of one more attempt for ${named(t, id)} to ${cap}${t?.grants ? ` (${grantWords(t.grants)})` : ''}.\n`,
  );
}

interface RunViewJson {
  id: number;
  taskId: number;
  state?: string;
}

/** `fixloop cancel <run>`: the run becomes cancelled and its agent is stopped where the runner can. */
export async function cancelCommand(rawId: string, opts: ServerOptions, io: CliIo): Promise<number> {
  const id = idOf(rawId, 'run');
  const path = `/api/runs/${id}/cancel`;
  const conn = resolveConnection(opts, io.env);
  const res = await request(conn, io, 'POST', path);
  if (!res.ok) throw refusal('cancel', 'POST', path, res);
  if (opts.json) return print(io, prettyBody(res.body));
  const run = tryParse<RunViewJson>(res.body);
  const task = run?.taskId ? await taskNamed(conn, io, run.taskId) : null;
  return print(io, `Cancelled run ${id}${task ? ` on ${task}` : ''}. A webhook will not undo it.\n`);
}

/** `fixloop resume <task> --message TEXT`: a person's run of the Task's agent with that message (H1). */
export async function resumeTaskCommand(
  rawId: string,
  message: string,
  opts: ServerOptions,
  io: CliIo,
): Promise<number> {
  const id = idOf(rawId, 'Task');
  if (message.trim() === '') throw new CliError(2, '--message must not be empty');
  const path = `/api/tasks/${id}/resume`;
  const conn = resolveConnection(opts, io.env);
  const res = await request(conn, io, 'POST', path, { message });
  if (!res.ok) throw refusal('resume', 'POST', path, res);
  if (opts.json) return print(io, prettyBody(res.body));
  const run = tryParse<RunViewJson>(res.body);
  const task = await taskNamed(conn, io, id);
  return print(io, `Started run ${run?.id ?? '?'} on ${task ?? `Task ${id}`} with your message.\n`);
}

/** The Task's `owner/repo#N` for a message; null when it cannot be read (the action still happened). */
async function taskNamed(conn: Connection, io: CliIo, id: number): Promise<string | null> {
  try {
    const res = await request(conn, io, 'GET', `/api/tasks/${id}`);
    return res.ok ? named(tryParse<TaskViewJson>(res.body), id) : null;
  } catch {
    return null;
  }
}

function tryParse<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

function print(io: CliIo, text: string): number {
  io.stdout.write(text);
  return 0;
}
