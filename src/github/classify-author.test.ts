// SPEC F1, F2: classify carries each review's and comment's author — login, account type and
// `author_association` — from GitHub's own example payloads, so standing can be decided on them.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { classifyDelivery } from './classify.js';
import { AUTHOR_ASSOCIATIONS } from '../core/standing.js';

const ALL = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as Array<{
  name: string;
  examples: any[];
}>;
const examplesOf = (name: string): any[] => ALL.find((x) => x.name === name)?.examples ?? [];

/** The author a classified review or comment carries, or null when it is not one. */
function authorOf(event: string, payload: unknown) {
  const c = classifyDelivery(event, payload, 'guid-1');
  if (c.kind !== 'event' || (c.event.kind !== 'review.submitted' && c.event.kind !== 'comment')) return null;
  return { login: c.event.author, type: c.event.authorType, association: c.event.authorAssociation };
}

describe('F1/F2: classify carries the author and their association', () => {
  const cases: Array<[string, (p: any) => any]> = [
    ['pull_request_review', (p) => p.review],
    ['pull_request_review_comment', (p) => p.comment],
    ['issue_comment', (p) => p.comment],
  ];
  for (const [event, part] of cases) {
    const onPullRequest = examplesOf(event).filter((p) => event !== 'issue_comment' || p.issue.pull_request != null);
    test(`F1/F2: every ${event} example on a pull request carries its author_association`, () => {
      // The examples of issue comments are all on plain issues; one is moved onto a pull request.
      const payloads = onPullRequest.length > 0 ? onPullRequest : examplesOf(event).map(onAPullRequest);
      assert.ok(payloads.length > 0);
      for (const p of payloads) {
        const a = authorOf(event, p);
        assert.ok(a, `${event} ${p.action} is a review or comment`);
        assert.deepEqual(a, {
          login: part(p).user.login,
          type: part(p).user.type,
          association: part(p).author_association,
        });
        assert.ok((AUTHOR_ASSOCIATIONS as readonly string[]).includes(a.association!), a.association!);
      }
    });

    test(`F1/F2: a ${event} without author_association is kept, with no association (no standing)`, () => {
      const p = onAPullRequest(structuredClone(examplesOf(event)[0]));
      delete part(p).author_association;
      assert.equal(authorOf(event, p)?.association, null);
    });
  }
});

function onAPullRequest(p: any): any {
  const copy = structuredClone(p);
  if (copy.issue) copy.issue.pull_request = { url: 'https://api.github.com/repos/x/y/pulls/1' };
  return copy;
}
