import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { baseHealed, baseIssueBody, baseRedMessage, checkWords, summaryOnBase, type BaseRedWords } from './base-red.js';

const WORDS: BaseRedWords = {
  changeRequest: 'pull request',
  changeRequests: 'pull requests',
  referenceMark: '#',
  check: 'check',
};
const MAIN = { ref: 'main', failing: ['test', 'ci/legacy'] };

describe('summaryOnBase: a suite that failed before its jobs were stored, judged by its jobs', () => {
  const cases: Array<[string, string[], typeof MAIN | null, string[] | null]> = [
    ['every failing job fails on the base too', ['test'], MAIN, ['test']],
    ['two jobs, both the base’s', ['ci/legacy', 'test '], MAIN, ['ci/legacy', 'test']],
    ['one job is the pull request’s own', ['test', 'lint'], MAIN, null],
    ['no failing job listed: judged as before', [], MAIN, null],
    ['the base not known', ['test'], null, null],
    ['a base failing nothing', ['test'], { ref: 'main', failing: [] }, null],
  ];
  for (const [name, jobs, base, want] of cases) test(name, () => assert.deepEqual(summaryOnBase(jobs, base), want));
});

describe('baseHealed: the base passes the round’s checks again', () => {
  const cases: Array<[string, string[], { ref: string; failing: string[] } | null, boolean]> = [
    ['still failing', ['test'], MAIN, false],
    ['one of two still failing', ['test', 'lint'], { ref: 'main', failing: ['lint'] }, false],
    ['passing them again', ['test'], { ref: 'main', failing: ['ci/legacy'] }, true],
    ['green', ['test'], { ref: 'main', failing: [] }, true],
    ['not known: never closes', ['test'], null, false],
  ];
  for (const [name, checks, base, want] of cases) test(name, () => assert.equal(baseHealed(checks, base), want));
});

describe('the words', () => {
  test('the notice names the check, the commit and what happens next', () => {
    const m = baseRedMessage({
      repository: 'acme/shop',
      baseRef: 'main',
      checks: ['test'],
      baseSha: 'a'.repeat(40),
      words: WORDS,
    });
    assert.match(m, /^main of acme\/shop is failing `test` \(commit aaaaaaaaaaaa\)/);
    assert.match(m, /holds the pull requests that fail the same check/);
    assert.match(m, /when it passes again this notice closes/);
  });
  test('a check name cannot break out of its code span or its line', () => {
    assert.equal(checkWords('x`](http://evil)\n@team'), 'x ](http://evil) @team');
    assert.ok(checkWords('n'.repeat(1000)).length <= 256);
  });
  test('the issue lists the pull requests held, in the host’s words', () => {
    const body = baseIssueBody({
      repository: 'acme/shop-gl',
      baseRef: 'main',
      checks: ['unit'],
      baseSha: null,
      words: {
        ...WORDS,
        changeRequest: 'merge request',
        changeRequests: 'merge requests',
        referenceMark: '!',
        check: 'job',
      },
      pullRequests: [3, 4],
    });
    assert.match(body, /held so far: acme\/shop-gl!3, acme\/shop-gl!4/);
    assert.match(body, /fail the same job/);
  });
});
