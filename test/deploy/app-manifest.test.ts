// app.yml, the GitHub App manifest (SPEC M5): it subscribes to exactly the events the classifier
// handles, and asks for exactly the permissions fixloop's GitHub calls need — each permission used by
// at least one call, each call covered. The table below is the map from each ProviderPort method (and
// the workspace token) to the permission GitHub's REST docs name for its endpoint; a new method fails
// the test until it is added here, and its permission to app.yml.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { HANDLED_EVENTS } from '../../src/github/payloads.js';
import { createGitHub } from '../../src/github/client.js';
import { createScopedTokens } from '../../src/github/scoped-token.js';
import { startFakeGitHub } from '../support/fake-github/server.js';
import {
  fixloopManifest,
  GITHUB_COM,
  GITHUB_WEBHOOK_PATH,
  SETUP_CALLBACK_PATH,
} from '../../src/github/app-manifest.js';
import { WEBHOOK_PATH } from '../../src/github/host.js';
import { readAppManifest } from '../../src/wiring/github-setup.js';

type Level = 'read' | 'write';
interface Manifest {
  default_permissions: Record<string, Level>;
  default_events: string[];
}
const manifest = parse(readFileSync(new URL('../../app.yml', import.meta.url), 'utf8')) as Manifest;

/** Delivered to every App whether it subscribes or not; a manifest cannot list them. */
const ALWAYS_DELIVERED = ['ping', 'installation', 'installation_repositories'];

/**
 * Each client method → the permission its endpoint needs. `null`: no repository permission (the
 * App's JWT, or the token's own user). `optional`: GitHub may refuse it and fixloop goes on without
 * it — branch protection needs Administration, which the manifest leaves out (`requiredChecks` in the
 * config names the checks instead; the client answers "unknown" on 403).
 */
const USES: Record<string, { permission: string; level: Level; optional?: true } | null> = {
  getPullRequest: { permission: 'pull_requests', level: 'read' },
  listReviews: { permission: 'pull_requests', level: 'read' },
  // Issue 36 item 6: a bot review's inline findings, fingerprinted per round.
  reviewComments: { permission: 'pull_requests', level: 'read' },
  // Issue 36 item 2: a branch only behind its base is updated through GitHub's update-branch, which
  // asks for pull requests: write (decision 0075: the manifest asks for it).
  updateBranch: { permission: 'pull_requests', level: 'write' },
  listCheckRuns: { permission: 'checks', level: 'read' },
  listStatuses: { permission: 'statuses', level: 'read' },
  createCommitStatus: { permission: 'statuses', level: 'write' },
  requiredChecks: { permission: 'administration', level: 'read', optional: true },
  jobLogUrl: { permission: 'actions', level: 'read' },
  workflowRunOfJob: { permission: 'actions', level: 'read' },
  rerunFailedJobs: { permission: 'actions', level: 'write' },
  // Issue 36: re-queueing after a fix (a Work's requeueAfterFix) is GraphQL enqueuePullRequest, which
  // asks for merge queues: write (decision 0075: the manifest asks for it, so the option works as set).
  enqueuePullRequest: { permission: 'merge_queues', level: 'write' },
  compareCommits: { permission: 'contents', level: 'read' },
  addLabels: { permission: 'issues', level: 'write' },
  removeLabel: { permission: 'issues', level: 'write' },
  listIssueComments: { permission: 'issues', level: 'read' },
  createIssueComment: { permission: 'issues', level: 'write' },
  updateIssueComment: { permission: 'issues', level: 'write' },
  // Issue 36 item 4: an issue for a red base (the Work's `baseIssue`), closed with a comment when it heals.
  createIssue: { permission: 'issues', level: 'write' },
  closeIssue: { permission: 'issues', level: 'write' },
  // F1/F2 (decision 0042): a person's permission on the repository (every App's metadata), and who
  // added the approve-one label (the pull request's issue events).
  repositoryPermission: { permission: 'metadata', level: 'read' },
  labelActor: { permission: 'issues', level: 'read' },
  // N3: GraphQL reads of many pull requests at once; the reading also holds the head's check runs
  // and statuses (checks and statuses read, both granted above), the glance only pull requests.
  glancePullRequests: { permission: 'pull_requests', level: 'read' },
  readPullRequests: { permission: 'checks', level: 'read' },
  // The rate-limit headers GitHub already sent: no request of its own.
  rateLimits: null,
  selfLogin: null,
};

const covers = (granted: Level | undefined, needed: Level): boolean =>
  granted === 'write' || (granted === 'read' && needed === 'read');

describe('app.yml (SPEC M5)', () => {
  test('issue 36: it asks for what updating a branch and re-queueing need, and the merge_group event (decisions 0075, 0078)', () => {
    assert.equal(manifest.default_permissions.pull_requests, 'write');
    assert.equal(manifest.default_permissions.merge_queues, 'write');
    assert.ok(manifest.default_events.includes('merge_group'), 'the queue’s commits name the pull requests ahead');
  });

  test("its events are the classifier's handled events, less those every App receives", () => {
    const handled = Object.keys(HANDLED_EVENTS).filter((e) => !ALWAYS_DELIVERED.includes(e));
    assert.deepEqual([...manifest.default_events].sort(), handled.sort());
  });

  test('the table names every method of the GitHub client, so none goes unaccounted', () => {
    const client = createGitHub({ apiUrl: 'http://127.0.0.1:9', auth: { kind: 'token', token: 't' } });
    assert.deepEqual(Object.keys(client).sort(), Object.keys(USES).sort());
  });

  test('every call the client makes is granted by the manifest, except those fixloop can do without', () => {
    for (const [method, use] of Object.entries(USES)) {
      if (use === null || use.optional) continue;
      assert.ok(covers(manifest.default_permissions[use.permission], use.level), `${method}: ${use.permission}`);
    }
  });

  test("the workspace token's permissions are within the manifest's (an App cannot grant more than it has)", async () => {
    const fake = await startFakeGitHub();
    try {
      const app = fake.createApp();
      fake.addInstallation('acme');
      await createScopedTokens({ apiUrl: fake.url, auth: { kind: 'app', ...app }, retries: 0 }).forRepository(
        'acme/shop',
      );
      const [request] = fake.requestsTo(/\/access_tokens$/);
      const asked = (request?.body as { permissions: Record<string, Level> }).permissions;
      assert.ok(Object.keys(asked).length > 0);
      for (const [permission, level] of Object.entries(asked))
        assert.ok(covers(manifest.default_permissions[permission], level), permission);
    } finally {
      await fake.close();
    }
  });

  test('every permission the manifest asks for is used, at its level, by a call (metadata is every App’s)', () => {
    const needed = new Map<string, Level>([
      ['metadata', 'read'],
      ['contents', 'write'], // the workspace token above
    ]);
    for (const use of Object.values(USES)) {
      if (use === null || use.optional) continue;
      if (needed.get(use.permission) !== 'write') needed.set(use.permission, use.level);
    }
    assert.deepEqual(
      Object.fromEntries(Object.entries(manifest.default_permissions).sort()),
      Object.fromEntries([...needed].sort()),
    );
  });

  test('V3: the setup sends app.yml itself, with its webhook and callback at the paths fixloop serves', () => {
    const sent = fixloopManifest(readAppManifest(), {
      name: 'fixloop-acme',
      publicUrl: 'https://fixloop.acme.dev',
      target: GITHUB_COM,
    });
    assert.deepEqual(sent.default_permissions, manifest.default_permissions);
    assert.deepEqual(sent.default_events, manifest.default_events);
    assert.equal(GITHUB_WEBHOOK_PATH, WEBHOOK_PATH);
    assert.equal(sent.hook_attributes.url, `https://fixloop.acme.dev${WEBHOOK_PATH}`);
    assert.equal(sent.redirect_url, `https://fixloop.acme.dev${SETUP_CALLBACK_PATH}`);
    // app.yml's own addresses are a local install's: the callback, not `/` (which would drop the code).
    const raw = parse(readFileSync(new URL('../../app.yml', import.meta.url), 'utf8')) as { redirect_url: string };
    assert.equal(new URL(raw.redirect_url).pathname, SETUP_CALLBACK_PATH);
  });
});
