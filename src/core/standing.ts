// Standing: whether the author of a review or a comment may steer the loop (SPEC F1, F2, K9).
// A person counts only when their association with the repository is one the Work trusts (OWNER,
// MEMBER, COLLABORATOR by default); a bot only when listed by exact login and of type Bot. Everyone
// else is recorded and wakes nothing, on every path that can wake the agent (decision 0018).

/** GitHub's documented values of `author_association` on reviews and comments. */
export const AUTHOR_ASSOCIATIONS = [
  'COLLABORATOR',
  'CONTRIBUTOR',
  'FIRST_TIMER',
  'FIRST_TIME_CONTRIBUTOR',
  'MANNEQUIN',
  'MEMBER',
  'NONE',
  'OWNER',
] as const;
export type AuthorAssociation = (typeof AUTHOR_ASSOCIATIONS)[number];

/** Who may steer when a Work says nothing (`works[].trustedAssociations`). */
export const DEFAULT_TRUSTED_ASSOCIATIONS: readonly AuthorAssociation[] = ['OWNER', 'MEMBER', 'COLLABORATOR'];

/** The author of a review or comment as the delivery reports it; stored with a rejection row. */
export interface Author {
  login: string | null;
  type: string | null; // User | Bot | Organization | …
  association: string | null; // author_association with the repository
}

export interface StandingRules {
  /** The login fixloop acts as; null when unknown. Its own words never steer it. */
  selfLogin: string | null;
  /** Reviewer bots that count, by exact login in any case (`name` also names `name[bot]`, not the reverse). */
  allowBots: readonly string[];
  /** Associations whose people count; absent = DEFAULT_TRUSTED_ASSOCIATIONS. */
  trustedAssociations?: readonly string[] | undefined;
}

/** Why an author has no standing; the first rule that fails is the reason. */
export const NO_STANDING_REASONS = [
  'unknown_author', // a deleted account, or a type that is neither a person nor a bot
  'own_identity', // fixloop itself
  'bot_lookalike', // the login of an allow-listed bot on an account that is not of type Bot
  'untrusted_bot', // a bot that is not allow-listed
  'author_without_standing', // a person whose association the Work does not trust
] as const;
export type NoStandingReason = (typeof NO_STANDING_REASONS)[number];

export type Standing = { kind: 'person' } | { kind: 'bot' } | { kind: 'none'; reason: NoStandingReason };

/** F1/F2: whether this author may steer the loop, and as what. */
export function standingOf(author: Author, rules: StandingRules): Standing {
  const none = (reason: NoStandingReason): Standing => ({ kind: 'none', reason });
  const login = author.login?.trim() ?? '';
  if (login === '') return none('unknown_author');
  const name = normalLogin(login);
  const self = rules.selfLogin?.trim() ?? '';
  if (self !== '' && name === normalLogin(self)) return none('own_identity');
  // A listed login counts only on a Bot account; any other account under it (a User named
  // `coderabbitai`, or `coderabbitai[bot]`) imitates the bot.
  if (rules.allowBots.some((b) => normalLogin(b) === name)) {
    const exact = rules.allowBots.some((b) => listedLogin(b, login));
    return author.type === 'Bot' ? (exact ? { kind: 'bot' } : none('untrusted_bot')) : none('bot_lookalike');
  }
  if (author.type === 'Bot' || /\[bot\]$/i.test(login)) return none('untrusted_bot');
  if (author.type !== 'User') return none('unknown_author');
  const trusted: readonly string[] = rules.trustedAssociations ?? DEFAULT_TRUSTED_ASSOCIATIONS;
  const association = author.association?.trim().toUpperCase() ?? '';
  return trusted.includes(association) ? { kind: 'person' } : none('author_without_standing');
}

/** The login as listed, in any case; an entry without `[bot]` also names the App's `name[bot]` account. */
function listedLogin(entry: string, login: string): boolean {
  const e = entry.trim().toLowerCase();
  const l = login.toLowerCase();
  return l === e || l === `${e}[bot]`;
}

function normalLogin(login: string): string {
  return login
    .trim()
    .toLowerCase()
    .replace(/\[bot\]$/, '');
}
