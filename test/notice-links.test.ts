// Issue 31 (SPEC G1, P4, Q1): a notice sent to Slack or a webhook links the change on its own host —
// a GitLab merge request on GITLAB_URL, a GitHub pull request on the GitHub web host — as configured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { noticeSinksFromConfig } from '../src/wiring.js';
import type { Notice } from '../src/core/types.js';
import { tempDir } from './support/temp-dir.js';

function configFile(): string {
  const file = join(tempDir('fixloop-links-'), 'fixloop.json');
  writeFileSync(
    file,
    JSON.stringify({
      works: [
        { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] },
        {
          name: 'lab',
          account: 'acme',
          provider: 'gitlab',
          repositories: [{ name: 'acme/platform/shop', role: 'data' }],
        },
      ],
      notices: { sinks: [{ kind: 'slack' }, { kind: 'webhook', url: 'https://hooks.example.com/fixloop' }] },
    }),
  );
  return file;
}

const notice = (repository: string, pullRequest: number): Notice => ({
  id: pullRequest,
  taskId: 1,
  reason: 'budget_spent',
  headSha: 'a'.repeat(40),
  attemptsUsed: 2,
  repository,
  pullRequest,
  message: 'the automatic fix budget is spent',
  createdAt: '2026-12-04T10:00:00.000Z',
});

test('a GitLab Task links its merge request on GITLAB_URL, a GitHub one its pull request on the web host', async () => {
  const config = loadConfig({
    env: {
      WEBHOOK_SECRET: 's',
      GHE_HOST: 'ghe.example.com',
      GITLAB_URL: 'https://gitlab.example.com/',
      FIXLOOP_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x',
      FIXLOOP_NOTICE_WEBHOOK_SECRET: 'sink-secret',
    },
    file: configFile(),
  });
  const sent: Array<{ url: string; body: string }> = [];
  const fakeFetch = (async (url: string | URL, init?: RequestInit) => {
    sent.push({ url: String(url), body: String(init?.body) });
    return new Response(null, { status: 204 });
  }) as typeof fetch;
  const sinks = noticeSinksFromConfig(config, fakeFetch);
  assert.equal(sinks.length, 2);
  const never = new AbortController().signal;
  for (const sink of sinks) {
    await sink.send(notice('acme/platform/shop', 31), 'k1', never);
    await sink.send(notice('acme/shop', 12), 'k2', never);
  }
  const mr = 'https://gitlab.example.com/acme/platform/shop/-/merge_requests/31';
  const pr = 'https://ghe.example.com/acme/shop/pull/12';
  const [slackMr, slackPr, hookMr, hookPr] = sent;
  assert.match(slackMr!.body, new RegExp(`<${mr}\\|acme/platform/shop!31>`));
  assert.doesNotMatch(slackMr!.body, /\/pull\//);
  assert.match(slackPr!.body, new RegExp(`<${pr}\\|acme/shop#12>`));
  assert.equal(JSON.parse(hookMr!.body).notice.pullRequestUrl, mr);
  assert.equal(JSON.parse(hookPr!.body).notice.pullRequestUrl, pr);
});
