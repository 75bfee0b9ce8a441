// A code host's own words, for every text a person or an agent reads (issue 34 item 1; SPEC G1, K8,
// C6, Q3): what a change under review is called and how it is written, what its CI and one CI job
// are called, and the agent's lines about reading them. Each host's values live in its own folder
// (src/<host>/words.ts) and reach the texts as data, chosen for a repository's host where the use-case
// is wired, so no text here decides which host it speaks for.

import type { HostStanding } from './standing.js';

/** The lines of the agent's prompt that differ by host: its tools, its CI files, its review threads. */
export interface AgentWords {
  /** The protocol block's heading about reading CI first. */
  readHeading: string;
  /** The protocol block's lines on how to read CI; `ref` is the change as written (`acme/app#13`). */
  readLines(ref: string, number: number): string[];
  /** The "never counts as a fix" line about CI configuration and lockfiles. */
  ciFiles: string;
  /** A retry's account of what "moved" would have meant. */
  moved: string;
  /** The sentence asking the agent to read every failing CI result first (no final period). */
  allChecks: string;
  /** The sentence asking the agent to read the review's threads (no final period). */
  reviewThreads: string;
  /** Said in place of the fence when a failing CI result carried no output and none could be read. */
  noOutput: string;
}

export interface HostWords {
  /** The host's name as people know it. */
  name: string;
  /** What a change under review is called: 'pull request', 'merge request'. */
  changeRequest: string;
  /** The plural. */
  changeRequests: string;
  /** What precedes a change's number where it is written: '#', '!'. */
  referenceMark: string;
  /** A change's CI after a possessive: "this pull request's CI", "this merge request's pipeline". */
  ci: string;
  /** The same standing alone in a sentence: "CI is red", "the pipeline is red". */
  theCi: string;
  /** One CI result: 'check', 'job'. */
  check: string;
  /** What a person writes on a change: 'comment', 'note'. */
  comment: string;
  /**
   * F1/F2: what could not be read when a person's standing is unknown ("the access level could not be
   * read"). Default: "the permission on the repository could not be read".
   */
  standingUnreadable?: string;
  /**
   * M4: what a token needs to write fixloop's commit status, as the host's settings name it. Default:
   * "the permission to write commit statuses".
   */
  statusPermission?: string;
  /**
   * K3/K4: why a push whose comparison the host cut short cannot be checked in full (no final period).
   * Default: app/push-guard.ts's TRUNCATED_DETAIL.
   */
  comparisonCut?: string;
  /** A change's page under the host's web address (no leading slash): `acme/app/pull/13`. */
  changePath(repository: string, number: number): string;
  agent: AgentWords;
  /** F1/F2, K5: how the host says who has standing. Default: DEFAULT_HOST_STANDING (core/standing.ts). */
  standing?: HostStanding;
}

/** A change as its host writes it: `acme/app#13`, `group/app!13`. */
export function referenceOf(words: Pick<HostWords, 'referenceMark'>, repository: string, number: number): string {
  return `${repository}${words.referenceMark}${number}`;
}

/** Which host's words a repository's texts use; chosen by whoever wires the use-case. */
export type WordsOf = (repository: string) => HostWords;
