// Decision 0075: what a notice sink is sent of a red base, opened and healed, on either host's links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  baseRedIdempotencyKey,
  slackBaseRedMessage,
  webhookBaseRedBody,
  type BaseRedFacts,
} from './base-red-payload.js';
import type { ChangeLinks } from './change-link.js';

/** Two hosts of a test's own: one writes `#n` under /pull/, the other `!n` under /-/merge_requests/. */
const links: ChangeLinks = {
  hostOf: (r) =>
    r.startsWith('gl/')
      ? {
          id: 'other',
          webUrl: 'https://other.example/',
          words: { name: 'Other', referenceMark: '!', changePath: (repo, n) => `${repo}/-/merge_requests/${n}` },
        }
      : {
          id: 'forge',
          webUrl: 'https://forge.example',
          words: { name: 'Forge', referenceMark: '#', changePath: (repo, n) => `${repo}/pull/${n}` },
        },
};

const red = (repository: string): BaseRedFacts => ({
  id: 4,
  repository,
  baseRef: 'main',
  round: 2,
  checks: ['lint', 'test'],
  baseSha: 'c'.repeat(40),
  issueNumber: 12,
  openedAt: '2026-12-05T10:00:00.000Z',
  closedAt: null,
  pullRequests: [7, 9],
});

test('the webhook body says the event, the round and links each held change on its host', () => {
  for (const [repository, url] of [
    ['acme/shop', 'https://forge.example/acme/shop/pull/7'],
    ['gl/shop', 'https://other.example/gl/shop/-/merge_requests/7'],
  ] as const) {
    for (const [event, name] of [
      ['opened', 'base_red.opened'],
      ['healed', 'base_red.healed'],
    ] as const) {
      const body = webhookBaseRedBody(event, red(repository), 'the message', links) as any;
      assert.equal(body.event, name);
      assert.equal(body.baseRed.round, 2);
      assert.deepEqual(body.baseRed.checks, ['lint', 'test']);
      assert.equal(body.baseRed.issueNumber, 12);
      assert.equal(body.baseRed.message, 'the message');
      assert.deepEqual(body.baseRed.pullRequests[0], { number: 7, url });
      assert.equal(body.baseRed.pullRequests.length, 2);
    }
  }
});

test('the Slack message: a title per event, the message escaped, the checks, the commit and the held changes', () => {
  const opened = slackBaseRedMessage('opened', red('gl/shop'), 'a <b> & c', links);
  assert.match(opened.text, /^fixloop: main of gl\/shop is failing\. a <b> & c$/);
  const blocks = JSON.stringify(opened.blocks);
  assert.match(blocks, /a &lt;b&gt; &amp; c/);
  assert.match(blocks, /checks: lint, test · commit cccccccccccc/);
  assert.match(blocks, /<https:\/\/other\.example\/gl\/shop\/-\/merge_requests\/9\|gl\/shop!9>/);
  const healed = slackBaseRedMessage('healed', { ...red('acme/shop'), baseSha: null, pullRequests: [] }, 'ok', links);
  assert.match(healed.text, /^fixloop: main of acme\/shop passes again\./);
  assert.match(JSON.stringify(healed.blocks), /commit unknown/);
  assert.doesNotMatch(JSON.stringify(healed.blocks), /held:/);
});

test('one key per round, event and sink', () => {
  assert.equal(baseRedIdempotencyKey(4, 'opened', 'ops'), 'base-red-4-opened-ops');
  assert.notEqual(baseRedIdempotencyKey(4, 'opened', 'ops'), baseRedIdempotencyKey(4, 'healed', 'ops'));
});
