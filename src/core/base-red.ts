// A red base told once (issue 36 item 4, SPEC T1, G1): when the base branch fails a check that held a
// pull request, one notice for the base (and, where the Work asks, one issue on the repository)
// instead of silence; the pull requests held by the same red join it; the base passing those checks
// again closes it. Pure: which suite is the base's, whether the base healed, and the words.
import { boundCheckName } from './bounded-text.js';
import type { HostWords } from './host-words.js';
import { referenceOf } from './host-words.js';

/** The host's words a base notice uses. */
export type BaseRedWords = Pick<HostWords, 'changeRequest' | 'changeRequests' | 'referenceMark' | 'check'>;

/** The base branch as read: its failing checks and, where known, its head commit. */
export interface BaseReading {
  ref: string;
  failing: readonly string[];
  sha?: string | null;
}

/**
 * A suite or workflow run that failed before its jobs were stored, judged by its jobs as the host
 * lists them: the base's when every failing job fails on the base too (the jobs, to hold it by);
 * null when none failed, the base is not known, or one of them is the pull request's own.
 */
export function summaryOnBase(failingJobs: readonly string[], base: BaseReading | null): string[] | null {
  if (base === null || failingJobs.length === 0) return null;
  const onBase = new Set(base.failing.map((f) => f.trim()));
  const jobs = [...new Set(failingJobs.map((j) => j.trim()))];
  return jobs.every((j) => onBase.has(j)) ? jobs.sort() : null;
}

/**
 * Whether the base healed: read (not "not known") and failing none of the checks that held the round.
 * A base that cannot be read never closes a round.
 */
export function baseHealed(checks: readonly string[], base: BaseReading | null): boolean {
  if (base === null) return false;
  const failing = new Set(base.failing.map((f) => f.trim()));
  return !checks.some((c) => failing.has(c.trim()));
}

/** A check's name for a person's text: one line, no backticks (it sits in a code span), bounded. */
export function checkWords(name: string): string {
  return boundCheckName(name.replace(/[\r\n`]+/g, ' ').trim());
}

const listed = (checks: readonly string[]) => checks.map((c) => `\`${checkWords(c)}\``).join(', ');
const commitOf = (sha: string | null) => (sha ? ` (commit ${sha.slice(0, 12)})` : '');

export interface BaseRedFacts {
  repository: string;
  baseRef: string;
  checks: readonly string[];
  baseSha: string | null;
  words: BaseRedWords;
}

/** The Inbox notice: what fails on the base, that the agents are not woken for it, what happens next. */
export function baseRedMessage(f: BaseRedFacts): string {
  return (
    `${f.baseRef} of ${f.repository} is failing ${listed(f.checks)}${commitOf(f.baseSha)}, so fixloop holds the ` +
    `${f.words.changeRequests} that fail the same ${f.words.check} instead of waking their agents: no agent can fix ` +
    `what its ${f.words.changeRequest} did not break. Fix ${f.baseRef}; when it passes again this notice closes and ` +
    `the held ${f.words.changeRequests} are judged again on their next result.`
  );
}

/** The issue's title on the repository. */
export function baseIssueTitle(f: Pick<BaseRedFacts, 'baseRef' | 'checks'>): string {
  return `${f.baseRef} is failing ${f.checks.map(checkWords).join(', ')}`.slice(0, 240);
}

/** The issue's body: the check, the commit, the pull requests held so far. */
export function baseIssueBody(f: BaseRedFacts & { pullRequests: readonly number[] }): string {
  const held = f.pullRequests.map((n) => referenceOf(f.words, f.repository, n)).join(', ');
  return [
    `\`${f.baseRef}\` fails ${listed(f.checks)}${f.baseSha ? ` at commit ${f.baseSha}` : ''}.`,
    '',
    `fixloop holds the ${f.words.changeRequests} that fail the same ${f.words.check} instead of waking their agents` +
      (held ? ` (held so far: ${held})` : '') +
      '.',
    `When \`${f.baseRef}\` passes again, fixloop closes this issue and the held ${f.words.changeRequests} are judged again.`,
  ].join('\n');
}

/** The comment the issue is closed with. */
export function baseHealedComment(f: Pick<BaseRedFacts, 'baseRef' | 'checks' | 'words'>): string {
  return (
    `\`${f.baseRef}\` passes ${listed(f.checks)} again, so fixloop closes this issue; ` +
    `the held ${f.words.changeRequests} are judged again on their next result.`
  );
}

/** What the notice sinks are told when the base heals (decision 0075). */
export function baseHealedMessage(f: Pick<BaseRedFacts, 'repository' | 'baseRef' | 'checks' | 'words'>): string {
  return (
    `${f.baseRef} of ${f.repository} passes ${listed(f.checks)} again, so its notice is closed; ` +
    `the held ${f.words.changeRequests} are judged again on their next result.`
  );
}
