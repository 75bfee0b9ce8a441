// GitHub's words for what people and agents read (issue 34 item 1, core/host-words.ts): a pull request
// written `acme/app#13`, its checks, and the agent's tools for reading them (`fixloop pr checks`).
import type { HostWords } from '../core/host-words.js';

export const GITHUB_WORDS: HostWords = {
  name: 'GitHub',
  changeRequest: 'pull request',
  changeRequests: 'pull requests',
  referenceMark: '#',
  ci: 'CI',
  theCi: 'CI',
  check: 'check',
  comment: 'comment',
  comparisonCut:
    'the push changes at least 300 files and GitHub shows only the first 300, so the rest cannot be checked',
  standingUnreadable: 'the permission on the repository could not be read',
  statusPermission: '`statuses: write` (a GitHub App: "Commit statuses: Read and write")',
  changePath: (repository, n) => `${repository}/pull/${n}`,
  agent: {
    readHeading: 'Read the checks first.',
    readLines: (ref) => [
      `- Run \`fixloop pr checks ${ref} --failing\`, or call the MCP tool \`pull_request_checks\`. Both list every check run and status of the pull request's head commit, mark the failing ones by the rules fixloop itself uses, and show the end of the log of the first failing jobs (\`--log-lines N\` shows more).`,
    ],
    ciFiles: 'Editing CI workflow files or lockfiles to get a green build.',
    moved:
      "no new commit, no re-run check, no change to review threads, conflicts or the merge queue. If you did push, check that the commit reached this pull request's branch.",
    allChecks: "Read all of the pull request's checks before you change anything",
    reviewThreads: "Read the pull request's review threads",
    noOutput: 'The check reported no output text; read its log with the checks command in the protocol below.',
  },
};
