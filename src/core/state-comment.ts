// The one pull-request comment that mirrors the loop's state (SPEC K8, with K5, V2): a marker, a short
// summary for people (the state in words, attempts used of the budget, what failed on the current
// head, what happens next and what a person can do, the Task page), then the state as readable JSON
// behind a <details> toggle, and a digest of that JSON so a hand edit is detected. The ledger, not the
// comment, is the truth: a tampered comment is reported, never believed. Deterministic: the digest is
// SHA-256 (HMAC-SHA-256 when a key is given) of canonical JSON; the summary is outside it. Plain
// Markdown that GitHub and GitLab both render: a bold line, a list, a link, <details>. The summary
// speaks the host's words (issue 34): this pull request's CI, this merge request's pipeline.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { APPROVE_ONE_LABEL } from './handoff.js';
import { SKIP_LABEL } from './skip-label.js';
import { grantWords } from './grant-cap.js';
import type { LoopState as BoardLoopState } from './loop-state.js';
import { STOP_WHY } from './notice.js';
import { ATTEMPT_STATUSES, type AttemptStatus, type CiState } from './types.js';
import { STOP_REASONS, type StopReason } from './reasons.js';
import { untrustedLine } from './untrusted-text.js';
import { referenceOf, type HostWords } from './host-words.js';

export const STATE_MARKER = '<!-- fixloop-state -->';
const STATE_DOCUMENT_VERSION = 1;

export interface LoopStateAttempt {
  coordinate: string;
  status: AttemptStatus;
  fingerprint: string;
  createdAt: string; // ISO-8601
}

export interface LoopState {
  taskId: number;
  repository: string; // owner/name
  pullRequest: number;
  attempts: LoopStateAttempt[];
  notice: { reason: StopReason; headSha: string | null; attemptsUsed: number } | null;
  parked: boolean;
  approveOneUsed: boolean;
  /**
   * V4: a person's grants of one more attempt, used, allowed across the Task's life, and left. Absent
   * in a comment written before the cap existed (such a comment still reads back intact).
   */
  grants?: StateGrants | null;
  updatedAt: string; // ISO-8601
}

export interface StateGrants {
  used: number;
  max: number;
  left: number;
}

/**
 * What the summary tells people beyond the mirrored state (K8, V2). Read from the ledger at each
 * write, never part of the JSON or its digest, and free of "now", so an unchanged ledger renders an
 * unchanged comment.
 */
export interface StateSummaryFacts {
  /** The loop's state as the board shows it (core/loop-state.ts). */
  loopState: BoardLoopState;
  ciState: CiState;
  /** The head commit the loop judges now; null before one was seen. */
  headSha: string | null;
  /** Automatic attempts allowed: the budget plus a person's grants (C1, K5). */
  attemptsAllowed: number;
  /** The failing checks of the current head (V2): names as CI gave them, cleaned here. */
  failing: readonly string[];
  /** The global stop flag (D): nothing is resumed anywhere. */
  globalStop: boolean;
  /** Why `off`: the `fixloop:skip` label (else a person's switch). */
  skipLabel: boolean;
  /** The Task page (FIXLOOP_PUBLIC_URL + /tasks/<id>); null links nowhere. */
  taskUrl: string | null;
  /** The host's words: what the change and its CI are called, how the change is written. */
  words: StateWords;
}

/** The host's words a state comment uses. */
export type StateWords = Pick<HostWords, 'changeRequest' | 'referenceMark' | 'ci' | 'theCi' | 'check'>;

/**
 * The words of a summary rendered without the ledger's facts (what the mirrored state alone tells):
 * those every state comment used before issue 34. fixloop's own comments are always rendered with facts.
 */
const PLAIN_WORDS: StateWords = {
  changeRequest: 'pull request',
  referenceMark: '#',
  ci: 'CI',
  theCi: 'CI',
  check: 'check',
};

/** A digest key: with one, the digest is an HMAC, so a deliberate editor cannot recompute it. */
export type StateKey = string | Uint8Array;

export interface ParsedStateComment {
  /** The state read from the JSON, or null when it is missing, unparsable or not the expected shape. */
  state: LoopState | null;
  /** True only when the state was read and its JSON's canonical digest matches the digest line. */
  intact: boolean;
  /** The JSON value as found (undefined when there was none or it did not parse), for reporting. */
  document: unknown;
}

export interface StateDifference {
  path: string; // e.g. `$.attempts[1].status`
  comment: unknown; // undefined = absent in the comment
  ledger: unknown; // undefined = absent in the ledger
}

/**
 * K8: the comment body. Starts with the marker; then the summary for people; then, folded, the JSON
 * block that is the state; the last line is the digest. Without `facts` the summary says what the
 * mirrored state alone tells.
 */
export function renderStateComment(state: LoopState, key?: StateKey, facts?: StateSummaryFacts): string {
  const doc = toDocument(state);
  return [
    STATE_MARKER,
    ...summary(state, facts),
    '',
    '<details>',
    "<summary>The loop's state for tools (mirrored from fixloop's ledger, which is the truth: editing this comment changes nothing)</summary>",
    '',
    '```json',
    // '<', '>' and '`' are escaped so no text in the state can close the fence or forge a marker.
    JSON.stringify(doc, null, 2).replace(/[<>`]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    '```',
    '',
    '</details>',
    `<!-- fixloop-digest: ${digest(canonicalJson(doc), key)} -->`,
  ].join('\n');
}

/** K8: null when the body has no marker; otherwise the state and whether it is as fixloop wrote it. */
export function parseStateComment(body: string, key?: StateKey): ParsedStateComment | null {
  // GitHub's web editor saves CRLF line endings; that alone is not an edit.
  const text = body.replace(/\r\n?/g, '\n');
  if (!text.includes(STATE_MARKER)) return null;
  const block = /```json\n([\s\S]*?)\n```/.exec(text);
  if (!block) return { state: null, intact: false, document: undefined };
  let document: unknown;
  try {
    document = JSON.parse(block[1] as string);
  } catch {
    return { state: null, intact: false, document: undefined };
  }
  const after = text.slice(block.index + block[0].length);
  const found = [...after.matchAll(/<!-- fixloop-digest: ([0-9a-f]{64}) -->/g)].at(-1)?.[1];
  const state = fromDocument(document);
  const intact = state !== null && found !== undefined && sameHex(found, digest(canonicalJson(document), key));
  return { state, intact, document };
}

/**
 * K8: fixloop's own state comment among a pull request's comments — by its own login, with the marker.
 * Copies by others are ignored; with several of its own (a lost race), the oldest (lowest id) is the
 * one to update. Null when fixloop's login is unknown (findOwnStateComment then looks further).
 */
export function findStateComment<C extends { id: number; body: string; author: string | null }>(
  comments: readonly C[],
  selfLogin: string | null,
): C | null {
  if (selfLogin === null || selfLogin.trim() === '') return null;
  const self = normalLogin(selfLogin);
  let found: C | null = null;
  for (const c of comments) {
    if (c.author === null || normalLogin(c.author) !== self || !c.body.includes(STATE_MARKER)) continue;
    if (found === null || c.id < found.id) found = c;
  }
  return found;
}

/** What identifies fixloop's own state comment on one Task's pull request without asking GitHub who fixloop is. */
export interface OwnStateComment {
  /** The comment id the ledger kept for the Task (tasks.state_comment_id). */
  recordedId: string | null;
  /** fixloop's login, or null when the token may not read it (an installation token answers 403). */
  selfLogin: string | null;
  /** The state digest's HMAC key: only fixloop holds it, so a digest that verifies is fixloop's writing. */
  key: StateKey;
  taskId: number;
  repository: string;
  pullRequest: number;
}

/**
 * K8: fixloop's own state comment, whatever the token. In order: the comment whose id the ledger kept
 * (it stays ours after a hand edit); one by fixloop's login with the marker, when the login is known;
 * a bot's comment whose digest verifies with fixloop's key and whose state names this Task — a
 * person's copy, or an edited comment, never qualifies. The oldest wins among several. Null: none.
 */
export function findOwnStateComment<
  C extends { id: number; body: string; author: string | null; authorType?: string | null },
>(comments: readonly C[], own: OwnStateComment): C | null {
  if (own.recordedId !== null) {
    const recorded = comments.find((c) => String(c.id) === own.recordedId);
    if (recorded) return recorded;
  }
  const byLogin = findStateComment(comments, own.selfLogin);
  if (byLogin) return byLogin;
  let found: C | null = null;
  for (const c of comments) {
    if (found !== null && c.id > found.id) continue;
    if (c.authorType != null && c.authorType !== 'Bot') continue;
    const parsed = c.body.includes(STATE_MARKER) ? parseStateComment(c.body, own.key) : null;
    const s = parsed?.intact ? parsed.state : null;
    if (
      s !== null &&
      s.taskId === own.taskId &&
      s.pullRequest === own.pullRequest &&
      s.repository.toLowerCase() === own.repository.toLowerCase()
    )
      found = c;
  }
  return found;
}

/**
 * K8: where the comment's JSON differs from the ledger's state (the truth), path by path, for reporting
 * a tampered comment. Empty when they agree. A comment with no readable JSON differs at `$`.
 */
export function compareWithLedger(parsed: ParsedStateComment, ledger: LoopState): StateDifference[] {
  const truth = toDocument(ledger);
  if (parsed.document === undefined) return [{ path: '$', comment: undefined, ledger: truth }];
  const out: StateDifference[] = [];
  diff('$', parsed.document, truth, out);
  return out;
}

/** Sorted keys, no whitespace: the same value always has the same text (and the same digest). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => own(value, k) !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(own(value, k))}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The check names shown at most; the rest are counted. */
const FAILING_SHOWN = 5;
/** A check name is cut to this many characters in the summary. */
const CHECK_NAME_CHARS = 80;

/** A check name from CI, safe inside a code span: one line, no backtick, no angle bracket, bounded. */
function checkName(name: string): string {
  const clean = untrustedLine(name).replace(/[`<>]/g, "'").replace(/\s+/g, ' ').trim() || '(unnamed)';
  return clean.length > CHECK_NAME_CHARS ? `${clean.slice(0, CHECK_NAME_CHARS - 1)}…` : clean;
}

const capitalised = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}`;
const short = (sha: string) => `\`${sha.slice(0, 12)}\``;
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The state in words, as a headline and a line (K8): the same precedence as the board's loop state. */
function headline(s: LoopState, f: StateSummaryFacts | undefined): { title: string; state: string } {
  const w = f?.words ?? PLAIN_WORDS;
  if (s.parked)
    return { title: 'parked — a person decides', state: 'parked: the loop stopped and no one answered in time' };
  if (s.notice) {
    const head = s.notice.headSha ? ` (last head seen ${short(s.notice.headSha)})` : '';
    return { title: 'stopped — a person decides', state: `stopped: ${STOP_WHY[s.notice.reason]}${head}` };
  }
  const ci = w.theCi;
  const Ci = capitalised(ci);
  if (!f) return { title: `watching ${ci}`, state: `watching this ${w.changeRequest}'s ${w.ci}` };
  if (f.globalStop) return { title: 'paused', state: `paused: automation is stopped for every ${w.changeRequest}` };
  switch (f.loopState) {
    case 'off':
      return f.skipLabel
        ? { title: 'off', state: `off: the \`${SKIP_LABEL}\` label is on` }
        : { title: 'off', state: `off: a person turned the loop off for this ${w.changeRequest}` };
    case 'parked':
    case 'needs_person': // the notice above says why; here the mirrored state has not caught up yet
      return { title: 'stopped — a person decides', state: 'stopped' };
    case 'agent_running':
      return { title: 'an agent is working on it', state: 'an agent is working on the failure' };
    case 'interrupted':
      return { title: 'interrupted by a restart', state: "interrupted: a restart of fixloop stopped the agent's run" };
    case 'awaiting_progress':
      return { title: `waiting for ${ci} on the agent's fix`, state: `waiting for ${ci} on the agent's fix` };
    case 'idle':
      if (f.ciState === 'red') return { title: `${Ci} is red`, state: `${Ci} is red on the current head` };
      if (f.ciState === 'passing') return { title: `${Ci} is green`, state: `${Ci} is green on the current head` };
      return { title: `waiting for ${ci}`, state: `waiting for ${ci} on the current head` };
  }
}

/** What happens next, and what a person can do about it (K5, P1). */
function next(s: LoopState, f: StateSummaryFacts | undefined): string {
  const change = (f?.words ?? PLAIN_WORDS).changeRequest;
  const ci = (f?.words ?? PLAIN_WORDS).theCi;
  if (s.parked)
    return (
      `Nothing happens on its own: fixloop has parked this ${change} and will not resume on its own. ` +
      `Fix it by hand, or unpark it in fixloop (\`fixloop unpark ${s.taskId}\`) and grant one more attempt.`
    );
  if (s.notice) {
    const by = 'Nothing happens on its own: a person decides. ';
    if (s.grants && s.grants.left === 0)
      return (
        by +
        `No more attempts can be granted on this ${change} (${grantWords(s.grants)}): only a person raising ` +
        `this Task's cap in fixloop opens more (\`PUT /api/tasks/${s.taskId}/budget\`). Take it from here by hand, or ask them.`
      );
    if (s.grants)
      return (
        by +
        `Add the label \`${APPROVE_ONE_LABEL}\` (or comment \`/fixloop retry\`) to allow exactly one more automatic attempt ` +
        `(${grantWords(s.grants)}), or take the ${change} from here by hand.`
      );
    const approved = s.approveOneUsed ? ` One extra attempt was already approved for this ${change}.` : '';
    return (
      by +
      `Add the label \`${APPROVE_ONE_LABEL}\` to allow exactly one more automatic attempt, or take the ${change} from here by hand.${approved}`
    );
  }
  const used = s.attempts.length;
  const off = ` Comment \`/fixloop off\` to stop the loop for this ${change}.`;
  if (!f) return `fixloop resumes the agent when ${ci} fails, under its budget.${off}`;
  const left = f.attemptsAllowed - used;
  const nextAttempt =
    left > 0
      ? `fixloop resumes the agent with the failure (attempt ${used + 1} of ${f.attemptsAllowed})`
      : `no automatic attempt is left, so fixloop hands the ${change} to a person`;
  if (f.globalStop) return 'Nothing, until a person clears the global stop in fixloop (`fixloop start`).';
  switch (f.loopState) {
    case 'off':
      return f.skipLabel
        ? `No automatic attempt while the label is on; remove \`${SKIP_LABEL}\` to let fixloop act again.`
        : 'No automatic attempt; comment `/fixloop on` to turn the loop back on.';
    case 'parked':
    case 'needs_person':
      return 'Nothing happens on its own: a person decides.';
    case 'agent_running':
      return `fixloop waits for the agent to push a fix, then for ${ci} to judge it.${off}`;
    case 'interrupted':
      return `fixloop offers the same attempt again, once and free, when it is running again.${off}`;
    case 'awaiting_progress':
      return `When ${ci} has judged the fix: green ends the loop here; if it is red again, ${nextAttempt}.${off}`;
    case 'idle':
      if (f.ciState === 'red')
        return `If an agent can fix this failure, ${nextAttempt}; a failure it cannot fix (an approval, a red base) goes to a person.${off}`;
      if (f.ciState === 'passing') return `Nothing while ${ci} stays green; if it turns red, ${nextAttempt}.${off}`;
      return `When ${ci} finishes: nothing more if it passes; if it fails, ${nextAttempt}.${off}`;
  }
}

/** The summary's lines: a bold headline, then a list a person reads top to bottom. */
function summary(s: LoopState, f: StateSummaryFacts | undefined): string[] {
  const { title, state } = headline(s, f);
  const used = s.attempts.length;
  const attempts = f
    ? `${used} of ${plural(f.attemptsAllowed, 'automatic attempt')} used`
    : s.notice
      ? `${plural(s.notice.attemptsUsed, 'automatic attempt')} used`
      : `${plural(used, 'automatic attempt')} so far`;
  const lines = [
    `**fixloop: ${title}**`,
    '',
    `- **State:** ${state}`,
    `- **Attempts:** ${attempts}${s.grants ? `; ${grantWords(s.grants)}` : ''}`,
  ];
  if (f) {
    const names = [...new Set(f.failing.map(checkName))];
    const on = f.headSha ? ` on ${short(f.headSha)}` : '';
    if (names.length > 0) {
      const shown = names.slice(0, FAILING_SHOWN).map((n) => `\`${n}\``);
      const more = names.length > FAILING_SHOWN ? ` and ${names.length - FAILING_SHOWN} more` : '';
      lines.push(`- **What failed${on}:** ${shown.join(', ')}${more}`);
    } else if (f.ciState === 'red')
      lines.push(
        `- **What failed${on}:** ${capitalised(f.words.theCi)} is red; the failing ${f.words.check}s are not known yet`,
      );
    else if (f.ciState === 'passing') lines.push(`- **What failed${on}:** nothing, ${f.words.theCi} is green`);
  }
  lines.push(`- **What happens next:** ${next(s, f)}`);
  if (f?.taskUrl)
    lines.push(`- **Task page:** [${referenceOf(f.words, s.repository, s.pullRequest)} in fixloop](${f.taskUrl})`);
  return lines;
}

interface StateDocument {
  version: number;
  task: number;
  pullRequest: string; // owner/name#number
  attempts: LoopStateAttempt[];
  notice: LoopState['notice'];
  parked: boolean;
  approveOneUsed: boolean;
  grants?: StateGrants;
  updatedAt: string;
}

function toDocument(s: LoopState): StateDocument {
  return {
    version: STATE_DOCUMENT_VERSION,
    task: s.taskId,
    pullRequest: `${s.repository}#${s.pullRequest}`,
    attempts: s.attempts.map((a) => ({
      coordinate: a.coordinate,
      status: a.status,
      fingerprint: a.fingerprint,
      createdAt: a.createdAt,
    })),
    notice:
      s.notice === null
        ? null
        : { reason: s.notice.reason, headSha: s.notice.headSha, attemptsUsed: s.notice.attemptsUsed },
    parked: s.parked,
    approveOneUsed: s.approveOneUsed,
    ...(s.grants ? { grants: { used: s.grants.used, max: s.grants.max, left: s.grants.left } } : {}),
    updatedAt: s.updatedAt,
  };
}

const documentSchema = z.object({
  version: z.literal(STATE_DOCUMENT_VERSION),
  task: z.number().int(),
  pullRequest: z.string().regex(/^[^#\s]+\/[^#\s]+#\d+$/),
  attempts: z.array(
    z.object({
      coordinate: z.string(),
      status: z.enum(ATTEMPT_STATUSES),
      fingerprint: z.string(),
      createdAt: z.string(),
    }),
  ),
  notice: z
    .object({
      reason: z.enum(STOP_REASONS),
      headSha: z.string().nullable(),
      attemptsUsed: z.number().int().nonnegative(),
    })
    .nullable(),
  parked: z.boolean(),
  approveOneUsed: z.boolean(),
  // V4: optional, so a comment written before the cap existed still reads back intact.
  grants: z
    .object({
      used: z.number().int().nonnegative(),
      max: z.number().int().nonnegative(),
      left: z.number().int().nonnegative(),
    })
    .optional(),
  updatedAt: z.string(),
});

function fromDocument(document: unknown): LoopState | null {
  const r = documentSchema.safeParse(document);
  if (!r.success) return null;
  const d = r.data;
  const hash = d.pullRequest.lastIndexOf('#');
  return {
    taskId: d.task,
    repository: d.pullRequest.slice(0, hash),
    pullRequest: Number(d.pullRequest.slice(hash + 1)),
    attempts: d.attempts.map((a) => ({
      coordinate: a.coordinate,
      status: a.status,
      fingerprint: a.fingerprint,
      createdAt: a.createdAt,
    })),
    notice:
      d.notice === null
        ? null
        : { reason: d.notice.reason, headSha: d.notice.headSha, attemptsUsed: d.notice.attemptsUsed },
    parked: d.parked,
    approveOneUsed: d.approveOneUsed,
    ...(d.grants ? { grants: { used: d.grants.used, max: d.grants.max, left: d.grants.left } } : {}),
    updatedAt: d.updatedAt,
  };
}

function digest(canonical: string, key: StateKey | undefined): string {
  return (key === undefined ? createHash('sha256') : createHmac('sha256', key)).update(canonical, 'utf8').digest('hex');
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function diff(path: string, comment: unknown, ledger: unknown, out: StateDifference[]): void {
  if (Array.isArray(comment) && Array.isArray(ledger)) {
    for (let i = 0; i < Math.max(comment.length, ledger.length); i++) diff(`${path}[${i}]`, comment[i], ledger[i], out);
    return;
  }
  if (isPlainObject(comment) && isPlainObject(ledger)) {
    const keys = [...new Set([...Object.keys(ledger), ...Object.keys(comment)])].sort();
    for (const k of keys)
      diff(
        /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`,
        own(comment, k),
        own(ledger, k),
        out,
      );
    return;
  }
  if (comment === undefined && ledger === undefined) return;
  if (comment === undefined || ledger === undefined || canonicalJson(comment) !== canonicalJson(ledger))
    out.push({ path, comment, ledger });
}

function own(o: Record<string, unknown>, k: string): unknown {
  return Object.hasOwn(o, k) ? o[k] : undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function normalLogin(login: string): string {
  return login
    .trim()
    .toLowerCase()
    .replace(/\[bot\]$/, '');
}
