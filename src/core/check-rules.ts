// Rules per check (issue 36 item 3): a Work's operators say, by a glob over a check's name, how many
// automatic attempts that check may have (0: always a person), whether its first failure is re-run
// before any attempt, a line of instructions for the agent, and which paths a fix for it may touch.
// The first rule whose glob matches the check's name applies; a check no rule matches keeps the
// Work's budget and today's behaviour. Pure: names, counts and file paths in, verdicts and words out.
import type { CheckRuleStopReason } from './reasons.js';
import { pathMatchesGlob } from './path-policy.js';
import { neutralise, stripInvisible } from './untrusted-fence.js';
import { boundReason } from './attempt-state.js';

/** One rule of `works[].checks` as configured. */
export interface CheckRule {
  /** A glob over the check's name: `*` any characters, `?` one; case-insensitive, the whole name. */
  name: string;
  /** Automatic attempts this check may have over the Task's life; 0 hands every failure of it to a person. Absent: the Work's budget alone. */
  attempts?: number | undefined;
  /** Re-run the check's first failure (no attempt answered it yet) before any attempt. Absent: false. */
  rerunFirst?: boolean | undefined;
  /** Operator-written instructions appended to the agent's frame for a failure of this check. */
  instructions?: string | undefined;
  /** Path globs (path-policy.ts syntax) a fix for this check may change; a push changing any other path stops the loop. */
  paths?: readonly string[] | undefined;
}

/** Instructions are the operator's own words, kept short so a frame stays a frame. */
export const CHECK_RULE_INSTRUCTIONS_MAX = 2000;
/** How many files outside the allowed paths a stop names before "and N more". */
const DETAIL_FILES = 10;

/** Why a rule handed a check to a person, in words for people (the notice and the state comment). */
export const CHECK_RULE_WHY: Record<CheckRuleStopReason, string> = {
  check_rule_person: "the Work's rule for this check hands its failures to a person, never to the agent",
  check_rule_spent: "the automatic attempts the Work's rule allows for this check are spent",
  check_rule_paths:
    "the last push changed files outside the paths the Work's rule allows a fix for this check to touch",
};

/** Whether a check's name matches a rule's glob: `*` any run of characters, `?` one; case-insensitive. */
export function checkNameMatches(glob: string, checkName: string): boolean {
  const g = glob.trim().toLowerCase();
  const n = checkName.trim().toLowerCase();
  // ok[j]: the glob read so far matches n[0..j). Linear in the glob, no backtracking.
  let ok = new Array<boolean>(n.length + 1).fill(false);
  ok[0] = true;
  for (const c of g) {
    const next = new Array<boolean>(n.length + 1).fill(false);
    for (let j = 0; j <= n.length; j++) {
      if (c === '*') next[j] = ok[j] === true || (j > 0 && next[j - 1] === true);
      else next[j] = j > 0 && ok[j - 1] === true && (c === '?' || n[j - 1] === c);
    }
    ok = next;
  }
  return ok[n.length] === true;
}

/** The rule that applies to a check: the first whose glob matches its name; null when none does. */
export function ruleForCheck(rules: readonly CheckRule[] | undefined, checkName: string | null): CheckRule | null {
  if (!rules || checkName === null) return null;
  return rules.find((r) => checkNameMatches(r.name, checkName)) ?? null;
}

/** The rule in a few words, as the Task page and a notice show it: "rule: e2e → a person". */
export function checkRuleWords(rule: CheckRule): string {
  const name = boundReason(rule.name, 80);
  if (rule.attempts === 0) return `rule: ${name} → a person`;
  const parts: string[] = [];
  if (rule.attempts !== undefined) parts.push(`at most ${rule.attempts} attempt${rule.attempts === 1 ? '' : 's'}`);
  if (rule.rerunFirst) parts.push('a first failure re-run first');
  if (rule.paths && rule.paths.length > 0) parts.push(`fixes only in ${boundReason(rule.paths.join(', '), 120)}`);
  if (rule.instructions) parts.push('with instructions for the agent');
  return `rule: ${name} → ${parts.length > 0 ? parts.join(', ') : "the Work's budget"}`;
}

export interface CheckRuleFacts {
  rule: CheckRule | null;
  /** Automatic attempts that answered a failure of a check this same rule applies to. */
  attemptsOnRule: number;
  /** One more attempt per grant a person gave the Task (K5): a rule's N is N plus these; never for 0. */
  grants: number;
}

export type CheckRuleVerdict =
  /** No rule, or the rule leaves this failure to the Work's budget and triage. */
  | { kind: 'agent' }
  /** The rule hands this failure to a person: the stop's reason and the rule in words. */
  | { kind: 'person'; reason: 'check_rule_person' | 'check_rule_spent'; detail: string }
  /** The rule asks for the failure to be re-run before any attempt answers it. */
  | { kind: 'rerun_first'; detail: string };

/** What the check's rule says of its failure, before any attempt is claimed for it. */
export function checkRuleVerdict(f: CheckRuleFacts): CheckRuleVerdict {
  const rule = f.rule;
  if (rule === null) return { kind: 'agent' };
  const words = checkRuleWords(rule);
  // 0 means always a person: a person's grant opens the Task's budget, not this check's.
  if (rule.attempts === 0) return { kind: 'person', reason: 'check_rule_person', detail: words };
  if (rule.attempts !== undefined && f.attemptsOnRule >= rule.attempts + f.grants)
    return {
      kind: 'person',
      reason: 'check_rule_spent',
      detail: `${words}; ${f.attemptsOnRule} used`,
    };
  if (rule.rerunFirst && f.attemptsOnRule === 0) return { kind: 'rerun_first', detail: words };
  return { kind: 'agent' };
}

export type CheckRulePathsVerdict =
  { kind: 'allow' } | { kind: 'stop'; reason: 'check_rule_paths'; detail: string; outside: string[] };

/** A fix for a check whose rule lists paths: every changed file (and a rename's old path) must match one. */
export function checkRulePathsVerdict(
  rule: CheckRule | null,
  files: ReadonlyArray<{ path: string; previousPath?: string | undefined }>,
): CheckRulePathsVerdict {
  const allowed = rule?.paths;
  if (!rule || !allowed || allowed.length === 0) return { kind: 'allow' };
  const inside = (p: string) => allowed.some((g) => pathMatchesGlob(g, p));
  const outside = [
    ...new Set(files.flatMap((f) => [f.path, ...(f.previousPath !== undefined ? [f.previousPath] : [])])),
  ]
    .filter((p) => !inside(p))
    .sort();
  if (outside.length === 0) return { kind: 'allow' };
  const named = outside.slice(0, DETAIL_FILES).map((p) => boundReason(p, 200));
  const more = outside.length > DETAIL_FILES ? `; and ${outside.length - DETAIL_FILES} more` : '';
  return {
    kind: 'stop',
    reason: 'check_rule_paths',
    detail: `${checkRuleWords(rule)}; outside them: ${named.join('; ')}${more}`,
    outside,
  };
}

/**
 * The rule's instructions as a labelled section of the agent's frame (the situation, where fixloop's
 * own sentences are). The operator wrote them, so they are instructions; still neutralised, so they
 * cannot forge this prompt's data markers, and bounded. Null when the rule has none.
 */
export function checkRuleInstructions(rule: CheckRule | null, nonce: string): string | null {
  const text = rule?.instructions?.trim();
  if (!rule || !text) return null;
  const bounded = text.length > CHECK_RULE_INSTRUCTIONS_MAX ? `${text.slice(0, CHECK_RULE_INSTRUCTIONS_MAX)}…` : text;
  return [
    `Instructions for this check from the people who run fixloop for this repository (their configuration, the rule for ${neutralise(boundReason(rule.name, 80), nonce)}):`,
    neutralise(stripInvisible(bounded), nonce),
  ].join('\n');
}

/** The rules of the Work that holds `repository` (its name in any case); none when no Work does. */
export function checkRulesOf(
  works: ReadonlyArray<{ repositories: ReadonlyArray<{ name: string }>; checks?: readonly CheckRule[] | undefined }>,
  repository: string,
): readonly CheckRule[] {
  const name = repository.toLowerCase();
  return works.find((w) => w.repositories.some((r) => r.name.toLowerCase() === name))?.checks ?? [];
}

/** The rule that applies to the first of a Task's failing checks that has one, in words (the Task page); null when none does. */
export function checkRuleWordsFor(
  works: Parameters<typeof checkRulesOf>[0] | undefined,
  repository: string,
  checkNames: ReadonlyArray<string | null>,
): string | null {
  const rules = checkRulesOf(works ?? [], repository);
  for (const name of checkNames) {
    const rule = ruleForCheck(rules, name);
    if (rule) return checkRuleWords(rule);
  }
  return null;
}
