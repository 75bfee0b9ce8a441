// GitLab's words for what people and agents read (issue 34 item 1, core/host-words.ts): a merge request
// written `group/app!13`, its pipeline and jobs, notes, and the agent's tools (`glab`, the MCP tool).
import type { HostWords } from '../core/host-words.js';

export const GITLAB_WORDS: HostWords = {
  name: 'GitLab',
  changeRequest: 'merge request',
  changeRequests: 'merge requests',
  referenceMark: '!',
  ci: 'pipeline',
  theCi: 'the pipeline',
  check: 'job',
  comment: 'note',
  comparisonCut:
    'the push changes more files than GitLab shows in one comparison (it cut the diff short), so the rest cannot be checked',
  standingUnreadable: 'the access level could not be read',
  statusPermission: 'the `api` scope and at least the Developer role',
  changePath: (repository, n) => `${repository}/-/merge_requests/${n}`,
  // F1/F2: a member's access level is the association, read from GitLab (its hooks carry none);
  // K5: labelling a merge request already takes a Reporter, so the label is its own answer.
  // Decision 0077: a review bot is an ordinary account (its own user, an access token's bot user), so a
  // listed username counts as the bot when it is an active Developer or above on the project.
  standing: {
    minimumPermission: false,
    associationFromHost: true,
    labelCredit: 'a GitLab member',
    botMembership: true,
  },
  agent: {
    readHeading: 'Read the pipeline first.',
    readLines: (_ref, n) => [
      "- Call the MCP tool `pull_request_checks`. It lists every job of the pipelines on the merge request's head commit, marks the failing ones by the rules fixloop itself uses (a job allowed to fail never counts as red), and shows the end of the trace of the first failing jobs.",
      `- With the glab CLI in the checkout: \`glab ci trace <job-id>\` prints one job's whole trace, and \`glab mr view ${n}\` shows the merge request.`,
    ],
    ciFiles: 'Editing the CI configuration (`.gitlab-ci.yml` and what it includes) or lockfiles to get a green build.',
    moved:
      "no new commit, no retried job, no change to discussion threads, conflicts or the merge train. If you did push, check that the commit reached this merge request's source branch.",
    allChecks: "Read all of the merge request's pipeline jobs before you change anything",
    reviewThreads: "Read the merge request's discussion threads",
    noOutput: 'The job reported no output text; read its trace with the commands in the protocol below.',
  },
};
