// Standing: whether the author of a review or a comment may steer the loop (SPEC F1, F2, K9).
// A person counts only when their association with the repository is one the Work trusts (OWNER,
// MEMBER, COLLABORATOR by default) and, on GitHub, when the repository itself gives them at least the
// Work's minimum permission (write by default); a bot only when listed by exact login and of type Bot,
// or, where bots are ordinary accounts (GitLab), listed and an active member of the project.
// Everyone else is recorded and wakes nothing, on every path that can wake the agent (decisions 0018, 0042, 0077).

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

/**
 * A person's role on a GitHub repository, weakest first (the collaborator-permission endpoint's
 * `role_name`, or its `permission` for a custom role). `none` is no access at all.
 */
export const REPOSITORY_PERMISSIONS = ['none', 'read', 'triage', 'write', 'maintain', 'admin'] as const;
export type RepositoryPermission = (typeof REPOSITORY_PERMISSIONS)[number];

/** What a Work may require of a person (`works[].minimumPermission`). */
export const MINIMUM_PERMISSIONS = ['read', 'triage', 'write', 'maintain', 'admin'] as const;
export type MinimumPermission = (typeof MINIMUM_PERMISSIONS)[number];

/** Who may steer a GitHub Work's pull requests when it says nothing: those who may push to the repository. */
export const DEFAULT_MINIMUM_PERMISSION: MinimumPermission = 'write';

/**
 * What the host answered when asked about a person just before judging: their permission on the
 * repository (GitHub), or that it could not say (an error, a timeout, a refusal to fixloop itself).
 */
export type HostAnswer = { kind: 'permission'; permission: string } | { kind: 'unreadable' };

export interface StandingRules {
  /** The login fixloop acts as; null when unknown. Its own words never steer it. */
  selfLogin: string | null;
  /** Reviewer bots that count, by exact login in any case (`name` also names `name[bot]`, not the reverse). */
  allowBots: readonly string[];
  /** Associations whose people count; absent = DEFAULT_TRUSTED_ASSOCIATIONS. */
  trustedAssociations?: readonly string[] | undefined;
  /**
   * GitHub: the least permission on the repository a person needs, beyond a trusted association (the
   * association is only a first filter). Absent: the association alone decides, as for GitLab, whose
   * association is the member access level read from GitLab itself.
   */
  minimumPermission?: MinimumPermission | undefined;
  /**
   * A host whose bots are ordinary accounts in the people's namespace (GitLab, decision 0077): a login
   * listed exactly in `allowBots` is the bot when the project vouches for it — an active member at a
   * level that counts (an association other than NONE, read from the host) — whatever type the
   * delivery gives. Absent: only an account of type Bot is the bot.
   */
  botMembership?: boolean | undefined;
}

/** Why an author has no standing; the first rule that fails is the reason. */
export const NO_STANDING_REASONS = [
  'unknown_author', // a deleted account, or a type that is neither a person nor a bot
  'own_identity', // fixloop itself
  'bot_lookalike', // the login of an allow-listed bot on an account that is not of type Bot
  'untrusted_bot', // a bot that is not allow-listed
  'author_without_standing', // a person whose association the Work does not trust, or whose permission is below its minimum
  'standing_unreadable', // a person the host could not say anything about when asked: unknown is never standing
] as const;
export type NoStandingReason = (typeof NO_STANDING_REASONS)[number];

export type Standing = { kind: 'person' } | { kind: 'bot' } | { kind: 'none'; reason: NoStandingReason };

/**
 * Decision 0077: an account listed as a review bot on a host where bots are ordinary accounts, whose
 * standing waits on the host's membership read. While that read cannot be had, what it says is kept as
 * the bot's (never as a person's act), and judged again when it is offered.
 */
export function awaitsBotMembership(author: Author, rules: StandingRules): boolean {
  const login = author.login?.trim().toLowerCase() ?? '';
  return (
    rules.botMembership === true &&
    author.type === 'User' &&
    login !== '' &&
    rules.allowBots.some((b) => b.trim().toLowerCase() === login)
  );
}

/**
 * F1/F2: whether this author may steer the loop, and as what. `answer` is what the host said when
 * asked (permissionNeeded says when to ask); a person a minimum applies to and nobody asked about has
 * no standing, so a caller that forgets to ask fails closed.
 */
export function standingOf(author: Author, rules: StandingRules, answer?: HostAnswer): Standing {
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
    if (author.type === 'Bot') return exact ? { kind: 'bot' } : none('untrusted_bot');
    // Decision 0077: where bots are ordinary accounts, the project's membership tells the bot from a namesake.
    // The login as listed, letter for letter (any case): GitLab has no `name[bot]` App accounts.
    const asListed = rules.allowBots.some((b) => b.trim().toLowerCase() === login.toLowerCase());
    if (rules.botMembership === true && asListed && author.type === 'User') {
      if (answer?.kind === 'unreadable') return none('standing_unreadable');
      const level = author.association?.trim().toUpperCase() ?? '';
      return level !== '' && level !== 'NONE' ? { kind: 'bot' } : none('bot_lookalike');
    }
    return none('bot_lookalike');
  }
  if (author.type === 'Bot' || /\[bot\]$/i.test(login)) return none('untrusted_bot');
  if (author.type !== 'User') return none('unknown_author');
  if (answer?.kind === 'unreadable') return none('standing_unreadable');
  const trusted: readonly string[] = rules.trustedAssociations ?? DEFAULT_TRUSTED_ASSOCIATIONS;
  const association = author.association?.trim().toUpperCase() ?? '';
  if (!trusted.includes(association)) return none('author_without_standing');
  if (rules.minimumPermission === undefined) return { kind: 'person' };
  if (answer === undefined) return none('standing_unreadable');
  return permissionAtLeast(answer.permission, rules.minimumPermission)
    ? { kind: 'person' }
    : none('author_without_standing');
}

/**
 * Whether judging this author needs their permission read from the host: a person who passes every
 * other rule (the association is a first filter, so a stranger costs no API call) under a Work with
 * a minimum permission.
 */
export function permissionNeeded(author: Author, rules: StandingRules): boolean {
  if (rules.minimumPermission === undefined) return false;
  return standingOf(author, { ...rules, minimumPermission: undefined }).kind === 'person';
}

/** A role at least `minimum`; a role GitHub does not document (or `none`) is below every minimum. */
export function permissionAtLeast(permission: string, minimum: MinimumPermission): boolean {
  const rank = (REPOSITORY_PERMISSIONS as readonly string[]).indexOf(permission.trim().toLowerCase());
  return rank > 0 && rank >= REPOSITORY_PERMISSIONS.indexOf(minimum);
}

/**
 * How a code host says who has standing (F1/F2, K5), given by the host with its words: GitHub checks
 * a person's repository permission, GitLab's member access level is the association itself.
 */
export interface HostStanding {
  /** The Work's minimum repository permission applies (GitHub); false: the association is the level (GitLab). */
  minimumPermission: boolean;
  /** Its deliveries carry no author association: a person's is read from the host (GitLab). */
  associationFromHost: boolean;
  /**
   * Decision 0077: bots are ordinary accounts named like people (GitLab): a listed login is the bot
   * when it is an active member of the project at a level that counts (StandingRules.botMembership).
   */
  botMembership?: boolean;
  /**
   * K5: a steering label is its own answer (labelling already takes a role, as on GitLab), credited to
   * this; absent: who added it must have the Work's minimum permission.
   */
  labelCredit?: string;
}

/** A host that says nothing of its standing: permissions checked, associations carried by deliveries. */
export const DEFAULT_HOST_STANDING: HostStanding = { minimumPermission: true, associationFromHost: false };

/** The rules of a Work: the minimum permission applies only where the host checks permissions. */
export function rulesOfWork(
  work: {
    trustedAssociations?: readonly string[] | undefined;
    minimumPermission?: MinimumPermission | undefined;
  },
  selfLogin: string | null,
  allowBots: readonly string[],
  host: HostStanding = DEFAULT_HOST_STANDING,
): StandingRules {
  return {
    selfLogin,
    allowBots,
    trustedAssociations: work.trustedAssociations,
    minimumPermission: host.minimumPermission ? (work.minimumPermission ?? DEFAULT_MINIMUM_PERMISSION) : undefined,
    ...(host.botMembership === true ? { botMembership: true } : {}),
  };
}

/** Who added a label, as the host's events report it: no association with it. */
export interface LabelActor {
  login: string | null;
  type: string | null;
}

/**
 * F1 for a label that steers the loop (K5's approve-one): the events that report who added it carry no
 * association (adding a label already takes triage on the repository), so the account checks and, on
 * GitHub, the permission decide. A bot never grants, allow-listed reviewer or not: a label is a
 * person's answer.
 */
export function labelerStanding(actor: LabelActor, rules: StandingRules, answer?: HostAnswer): Standing {
  const s = standingOf(...asLabeler(actor, rules), answer);
  return s.kind === 'bot' ? { kind: 'none', reason: 'untrusted_bot' } : s;
}

/** Whether judging who added a label needs their permission read (a person, under a minimum). */
export function labelerPermissionNeeded(actor: LabelActor, rules: StandingRules): boolean {
  return permissionNeeded(...asLabeler(actor, rules));
}

function asLabeler(actor: LabelActor, rules: StandingRules): [Author, StandingRules] {
  return [
    { login: actor.login, type: actor.type, association: 'COLLABORATOR' },
    { ...rules, trustedAssociations: ['COLLABORATOR'] },
  ];
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
