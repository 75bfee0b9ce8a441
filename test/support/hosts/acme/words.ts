// Acme Forge's words (a fake third code host, test-only; docs/adding-a-host.md): what it calls a
// change under review and how it writes one (`acme/app~7`), its builds and steps, its remarks, and
// the agent's lines about reading them. Every text fixloop makes for an Acme repository uses these.
import type { HostWords } from '../../../../src/core/host-words.js';

export const ACME_WORDS: HostWords = {
  name: 'Acme Forge',
  changeRequest: 'change request',
  changeRequests: 'change requests',
  referenceMark: '~',
  ci: 'build',
  theCi: 'the build',
  check: 'build step',
  comment: 'remark',
  changePath: (repository, n) => `${repository}/changes/${n}`,
  agent: {
    readHeading: 'Read the build first.',
    readLines: (ref) => [
      `- Call the MCP tool \`pull_request_checks\` for ${ref}: it lists every build step of the change request's head and shows the end of the log of the failing ones.`,
    ],
    ciFiles: 'Editing the build definition (`.acme/build.toml`) or lockfiles to get a green build.',
    moved:
      "no new commit, no re-run build step, no new remark. If you did push, check that the commit reached this change request's branch.",
    allChecks: "Read all of the change request's build steps before you change anything",
    reviewThreads: "Read the change request's remarks",
    noOutput: 'The build step reported no output text; read its log with the MCP tool in the protocol below.',
  },
};
