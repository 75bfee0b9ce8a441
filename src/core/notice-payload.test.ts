// What the notice sinks are sent (G1, P4): the Slack incoming-webhook message and the webhook body.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { idempotencyKey, pullRequestUrl, slackMessage, webhookBody } from './notice-payload.js';
import type { Notice } from './types.js';
import type { ChangeLinks } from './change-link.js';
import { builtInChangeLinks, GITHUB_LINKS } from '../wiring/change-links.js';

/** acme/shop on GitHub, acme/platform/shop on a self-managed GitLab (issue 31). */
const links = (githubUrl: string): ChangeLinks =>
  builtInChangeLinks({
    githubUrl,
    gitlabUrl: 'https://gitlab.example.com/',
    providerOf: (repository) => (repository === 'acme/platform/shop' ? 'gitlab' : 'github'),
  });

const notice: Notice = {
  id: 41,
  taskId: 7,
  reason: 'budget_spent',
  headSha: 'abcdef0123456789abcdef0123456789abcdef01',
  attemptsUsed: 2,
  repository: 'acme/shop',
  pullRequest: 12,
  message: 'fixloop stopped for acme/shop#12: the automatic fix budget is spent (2 of 2 <used>) & more',
  createdAt: '2026-12-01T10:00:00.000Z',
};

describe('slackMessage (G1)', () => {
  test('is a Slack incoming-webhook message: text, a section with the linked pull request, a context line', () => {
    assert.deepEqual(slackMessage(notice, GITHUB_LINKS), {
      text: 'fixloop stopped for acme/shop#12: the automatic fix budget is spent. https://github.com/acme/shop/pull/12',
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text:
              '*fixloop stopped for <https://github.com/acme/shop/pull/12|acme/shop#12>*\n' +
              'fixloop stopped for acme/shop#12: the automatic fix budget is spent (2 of 2 &lt;used&gt;) &amp; more',
          },
        },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: 'reason: budget_spent · attempts used: 2 · last head: abcdef012345' }],
        },
      ],
    });
  });

  test('says "unknown" for a notice without a head', () => {
    const m = slackMessage({ ...notice, headSha: null }, GITHUB_LINKS);
    assert.match(JSON.stringify(m.blocks[1]), /last head: unknown/);
  });
});

describe('webhookBody (G1)', () => {
  test('carries every field of the notice, the reason in words and the link', () => {
    assert.deepEqual(webhookBody(notice, links('https://ghe.example.com/')), {
      event: 'notice.filed',
      notice: {
        id: 41,
        taskId: 7,
        repository: 'acme/shop',
        pullRequest: 12,
        pullRequestUrl: 'https://ghe.example.com/acme/shop/pull/12',
        reason: 'budget_spent',
        why: 'the automatic fix budget is spent',
        headSha: notice.headSha,
        attemptsUsed: 2,
        message: notice.message,
        createdAt: notice.createdAt,
      },
    });
  });

  test('the idempotency key names the notice and the sink, the same on every try', () => {
    assert.equal(idempotencyKey(41, 'ops'), 'notice-41-ops');
    assert.equal(pullRequestUrl(GITHUB_LINKS, notice), 'https://github.com/acme/shop/pull/12');
  });
});

describe('the link names the change on its own host (issue 31)', () => {
  const mr: Notice = { ...notice, repository: 'acme/platform/shop', pullRequest: 31 };

  test("a GitLab project's notice links its merge request on GITLAB_URL, written group/project!iid", () => {
    const url = 'https://gitlab.example.com/acme/platform/shop/-/merge_requests/31';
    assert.equal(pullRequestUrl(links('https://github.com'), mr), url);
    assert.equal(
      (webhookBody(mr, links('https://github.com')).notice as { pullRequestUrl: string }).pullRequestUrl,
      url,
    );
    const slack = slackMessage(mr, links('https://github.com'));
    assert.match(slack.text, new RegExp(`acme/platform/shop!31: .* ${url}$`));
    assert.match(JSON.stringify(slack.blocks[0]), new RegExp(`<${url}\\|acme/platform/shop!31>`));
    assert.doesNotMatch(JSON.stringify(slack), /github|\/pull\//);
  });

  test("a GitHub repository's notice links its pull request on the GitHub web host", () => {
    const url = 'https://ghe.example.com/acme/shop/pull/12';
    assert.equal(pullRequestUrl(links('https://ghe.example.com'), notice), url);
    assert.match(slackMessage(notice, links('https://ghe.example.com')).text, new RegExp(`acme/shop#12: .* ${url}$`));
  });
});
