// SPEC G1: the one Inbox notice names the pull request, the last head, attempts used and why it stopped.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { noticeMessage, type NoticeFacts } from './notice.js';
import { STOP_REASONS, type StopReason } from './reasons.js';
import { GITHUB_WORDS } from '../github/words.js';
import { GITLAB_WORDS } from '../gitlab/words.js';

const SHA = '3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39';
const base: NoticeFacts = {
  repository: 'acme/shop-data',
  pullRequest: 42,
  headSha: SHA,
  attemptsUsed: 2,
  maxAttempts: 2,
  reason: 'budget_spent',
  words: GITHUB_WORDS,
};

const WHY: Record<StopReason, RegExp> = {
  budget_spent: /budget is spent/,
  unchanged_failure: /same failure came back unchanged/,
  parked: /parked/,
  dispatch_unconfirmed: /cannot tell whether it started/,
  agent_unreachable: /without a single call to fixloop/,
  agent_needs_person: /session is waiting for a person to answer it/,
  approval_required: /waiting for a person to approve it \(action_required\)/,
  no_ci: /no CI ran on the new head/,
  interrupted_twice: /restart of fixloop stopped the agent's run twice for the same attempt/,
  run_timeout: /still unfinished past its window/,
  queue_ejected: /merge queue removed it for a reason no agent's push can fix/,
  thrash_repeat: /repeats an earlier attempt/,
  thrash_aba: /alternate between two changes/,
  forbidden_change: /changed what judges the fix/,
  cost_ceiling: /cost ceiling/,
  wake_cap_window: /woken too often/,
  wake_cap_since_human: /since a person last acted/,
  check_rule_person: /rule for this check hands its failures to a person/,
  check_rule_spent: /attempts the Work's rule allows for this check are spent/,
  check_rule_paths: /outside the paths the Work's rule allows/,
  diff_too_large: /grew past this Work's bound on changed lines or files/,
  bot_repeats_findings: /review bot repeated the findings of a round the agent already answered/,
};

describe('G1: the notice message', () => {
  for (const reason of STOP_REASONS) {
    test(`G1: a ${reason} notice names repo#pr, the head, the attempts used and the reason`, () => {
      const m = noticeMessage({ ...base, reason });
      assert.match(m, /acme\/shop-data#42/);
      assert.match(m, new RegExp(SHA.slice(0, 12)));
      assert.match(m, /2 of 2 automatic attempts used/);
      assert.match(m, WHY[reason]);
    });
  }

  test('G1: the two reasons produce different messages', () => {
    assert.notEqual(
      noticeMessage({ ...base, reason: 'budget_spent' }),
      noticeMessage({ ...base, reason: 'unchanged_failure' }),
    );
  });

  const COUNTS: ReadonlyArray<[number, number]> = [
    [0, 0],
    [1, 3],
    [3, 3],
    [5, 5],
  ];
  for (const [used, max] of COUNTS) {
    test(`G1: attempts used ${used} of ${max} are stated`, () => {
      assert.match(
        noticeMessage({ ...base, attemptsUsed: used, maxAttempts: max }),
        new RegExp(`\\(${used} of ${max} automatic attempts used`),
      );
    });
  }

  test('G1: the last head seen is named by its short sha', () => {
    const other = 'aaaabbbbccccddddeeeeffff0000111122223333';
    const m = noticeMessage({ ...base, headSha: other });
    assert.match(m, /last head seen aaaabbbbcccc\)/);
    assert.doesNotMatch(m, new RegExp(SHA.slice(0, 12)));
  });

  test('G1: with no head seen the notice says "unknown", not a blank', () => {
    assert.match(noticeMessage({ ...base, headSha: null }), /last head seen unknown\)/);
  });

  test('G1: the notice tells a person what to do next', () => {
    assert.match(noticeMessage(base), /resume the run by hand/);
  });

  test('G1: on GitHub it names the pull request as owner/repo#N and its failing check', () => {
    assert.match(noticeMessage(base), /^fixloop stopped for acme\/shop-data#42: /);
    assert.match(noticeMessage(base), /Read the failing check on the pull request, then fix it yourself/);
  });

  test('issue 34: on GitLab it names the merge request as group/project!iid and its failing job', () => {
    const m = noticeMessage({ ...base, repository: 'acme/app', pullRequest: 13, words: GITLAB_WORDS });
    assert.match(m, /^fixloop stopped for acme\/app!13: /);
    assert.match(m, /Read the failing job on the merge request, then fix it yourself/);
    assert.doesNotMatch(m, /pull request|#13/);
  });
});
