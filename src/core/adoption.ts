// Adopting agent pull requests (issue 3, item 9; SPEC D "a fork pull request"): a pull request opened
// on a configured branch pattern and/or by a configured author becomes a Task with no API call. A pull
// request from a fork (or whose head repository is gone) is never adopted.
// Globs are matched here, minimally: `*` = any characters but '/', `**` = any characters.

export interface AdoptionCandidate {
  repository: string; // owner/name
  number: number;
  headRef: string;
  /** owner/name of the head repository; null when it was deleted. */
  headRepository: string | null;
  baseRepository: string;
  author: string | null;
  draft: boolean; // not a reason to refuse: agents often open drafts
}

export interface AdoptionRules {
  /** Head-branch globs, e.g. `agent/*`, `claude/**`. */
  branches: readonly string[];
  /** Author logins (any case; `name[bot]` and `name` are the same author). */
  authors: readonly string[];
}

export type AdoptionVerdict = { adopt: true } | { adopt: false; reason: 'fork' | 'no_rule_matched' };

/**
 * Each non-empty list is a condition and every given condition must hold: branches only → a branch
 * match; authors only → an author match; both → both (so `claude/**` by `claude[bot]` does not adopt a
 * person's branch of the same name). Neither list → nothing is adopted.
 */
export function adoptPullRequest(pr: AdoptionCandidate, rules: AdoptionRules): AdoptionVerdict {
  if (pr.headRepository === null || pr.headRepository.toLowerCase() !== pr.baseRepository.toLowerCase())
    return { adopt: false, reason: 'fork' };
  const byBranch = rules.branches.length === 0 || rules.branches.some((g) => matchesGlob(g, pr.headRef));
  const byAuthor =
    rules.authors.length === 0 || (pr.author !== null && rules.authors.some((a) => sameLogin(a, pr.author as string)));
  const anyRule = rules.branches.length > 0 || rules.authors.length > 0;
  return anyRule && byBranch && byAuthor ? { adopt: true } : { adopt: false, reason: 'no_rule_matched' };
}

type Token = { kind: 'char'; c: string } | { kind: 'star' } | { kind: 'globstar' };

/** Whole-string glob match: `*` any characters except '/', `**` any characters; everything else literal. */
export function matchesGlob(pattern: string, text: string): boolean {
  const tokens = tokenize(pattern);
  // ok[j] = tokens[0..i) match text[0..j); dynamic programming, no backtracking blow-up.
  let ok: boolean[] = new Array<boolean>(text.length + 1).fill(false);
  ok[0] = true;
  for (const t of tokens) {
    const next: boolean[] = new Array<boolean>(text.length + 1).fill(false);
    for (let j = 0; j <= text.length; j++) {
      switch (t.kind) {
        case 'char':
          next[j] = j > 0 && ok[j - 1] === true && text[j - 1] === t.c;
          break;
        case 'star':
          next[j] = ok[j] === true || (j > 0 && next[j - 1] === true && text[j - 1] !== '/');
          break;
        case 'globstar':
          next[j] = ok[j] === true || (j > 0 && next[j - 1] === true);
          break;
      }
    }
    ok = next;
  }
  return ok[text.length] === true;
}

function tokenize(pattern: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '*') {
      if (pattern[i + 1] === '*') {
        while (pattern[i + 1] === '*') i++;
        out.push({ kind: 'globstar' });
      } else out.push({ kind: 'star' });
    } else out.push({ kind: 'char', c: pattern[i] as string });
  }
  return out;
}

function sameLogin(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .trim()
      .toLowerCase()
      .replace(/\[bot\]$/, '');
  return norm(a) === norm(b);
}
