// Issue 19 on the dashboard (M4): a GitLab Task is written `group/project!iid` and links to its merge
// request on GITLAB_URL; a GitHub Task stays `owner/repo#N`, linked to the configured GitHub host.
// The pages are rendered on the server, as the dashboard serves them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BoardRow, InboxRow } from '../../src/app/ledger-port.js';
import { providerOfRepository } from '../../src/wiring/provider-of-repository.js';
import { changeRef, type ChangeLinks } from '../../src/core/change-link.js';
import { builtInChangeLinks, GITHUB_LINKS } from '../../src/wiring/change-links.js';
import { boardPage } from '../../src/dashboard/board-page.js';
import { inboxPage } from '../../src/dashboard/inbox-page.js';
import { timelinePage } from '../../src/dashboard/timeline-page.js';
import type { PageContext } from '../../src/dashboard/page-context.js';
import { taskFixture } from '../support/fixtures.js';

const links: ChangeLinks = builtInChangeLinks({
  githubUrl: 'https://ghe.example.com',
  gitlabUrl: 'https://gitlab.example.com/',
  providerOf: providerOfRepository([
    {
      name: 'shop',
      account: 'acme',
      provider: 'gitlab',
      repositories: [{ name: 'acme/platform/shop', role: 'data' }],
    },
    { name: 'widgets', account: 'acme', repositories: [{ name: 'acme/widgets', role: 'data' }] },
  ]),
});
const page = (over: Partial<PageContext> = {}): PageContext => ({
  csrf: 'csrf',
  stopped: false,
  failedDeliveries: 0,
  maxAttempts: 2,
  costCeiling: null,
  links,
  ...over,
});
const row = (over: Partial<BoardRow>): BoardRow => ({
  id: 1,
  repository: 'acme/widgets',
  pullRequest: 7,
  branch: 'agent/fix',
  state: 'open',
  ciState: 'red',
  attemptsUsed: 1,
  extraAttempts: 0,
  maxGrants: null,
  spend: 0,
  loopState: 'idle',
  lastFailure: null,
  triage: null,
  createdAt: '2026-12-01T10:00:00.000Z',
  ...over,
});
const notice = (over: Partial<InboxRow>): InboxRow => ({
  id: 1,
  taskId: 1,
  repository: 'acme/widgets',
  pullRequest: 7,
  reason: 'budget_spent',
  headSha: null,
  attemptsUsed: 2,
  message: 'stopped',
  createdAt: '2026-03-10T09:00:00Z',
  parked: false,
  ...over,
});

async function html(node: unknown): Promise<string> {
  return String(await (node as { toString(): string | Promise<string> }).toString());
}

describe('the dashboard names and links merge requests beside pull requests (M4, issue 19)', () => {
  test('changeRef: group/project!iid to the merge request, owner/repo#N to the pull request', () => {
    assert.deepEqual(changeRef(links, 'acme/platform/shop', 12), {
      label: 'acme/platform/shop!12',
      url: 'https://gitlab.example.com/acme/platform/shop/-/merge_requests/12',
    });
    assert.deepEqual(changeRef(links, 'acme/widgets', 7), {
      label: 'acme/widgets#7',
      url: 'https://ghe.example.com/acme/widgets/pull/7',
    });
    assert.equal(changeRef(GITHUB_LINKS, 'acme/widgets', 7).url, 'https://github.com/acme/widgets/pull/7');
  });

  test('the board: a GitLab Task links to its merge request, a GitHub one to its pull request', async () => {
    const out = await html(
      boardPage(page(), {}, [row({ id: 1 }), row({ id: 2, repository: 'acme/platform/shop', pullRequest: 12 })], null),
    );
    assert.ok(out.includes('href="https://gitlab.example.com/acme/platform/shop/-/merge_requests/12"'), out);
    assert.ok(out.includes('acme/platform/shop!12'));
    assert.ok(!out.includes('acme/platform/shop#12'));
    assert.ok(out.includes('href="https://ghe.example.com/acme/widgets/pull/7"'));
    assert.ok(out.includes('acme/widgets#7'));
    assert.ok(!out.includes('github.com/acme/platform/shop'), 'a GitLab project never links to GitHub');
    assert.ok(out.includes('<th scope="col">Pull or merge request</th>'), 'the header names both');
  });

  test("a GitLab Task's timeline is titled and linked by its merge request", async () => {
    const task = taskFixture({ repository: 'acme/platform/shop', pullRequest: 12 });
    const out = await html(timelinePage(page(), task, [], 0));
    assert.ok(out.includes('<title>acme/platform/shop!12 · fixloop</title>'), out);
    assert.ok(out.includes('href="https://gitlab.example.com/acme/platform/shop/-/merge_requests/12"'));
  });

  test('the Inbox writes a merge request with !', async () => {
    const out = await html(
      inboxPage(page(), [notice({ repository: 'acme/platform/shop', pullRequest: 12 }), notice({ id: 2 })], null),
    );
    assert.ok(out.includes('acme/platform/shop!12'));
    assert.ok(out.includes('acme/widgets#7'));
  });

  test('without links (an install with no GitLab Work) every Task is a github.com pull request, as before', async () => {
    const out = await html(boardPage(page({ links: undefined }), {}, [row({})], null));
    assert.ok(out.includes('href="https://github.com/acme/widgets/pull/7"'));
    assert.ok(out.includes('<th scope="col">Pull request</th>'));
  });
});
