// Issue 36 item 1 on GitLab, from GitLab's documented examples: a job or pipeline of a merge train
// (ref `refs/merge-requests/<iid>/train`) carries the train as its queue — the merge request, and the
// base its pipeline names; GitLab says neither the head it was built from nor what is ahead of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { classifyGitlabDelivery } from './classify.js';
import type { CheckResult } from '../core/neutral-events.js';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/gitlab/${name}.json`, import.meta.url), 'utf8'));

function ci(name: 'Job Hook' | 'Pipeline Hook', body: unknown): CheckResult {
  const c = classifyGitlabDelivery(name, body, 'k');
  assert.equal(c.kind, 'event', JSON.stringify(c));
  return (c as Extract<typeof c, { kind: 'event' }>).event as CheckResult;
}

test('a job of a merge train carries the train: the merge request, no base, no head', () => {
  const job = { ...fixture('job-hook'), build_status: 'failed', build_finished_at: '2021-02-23 02:43:10 UTC' };
  const r = ci('Job Hook', { ...job, ref: 'refs/merge-requests/7/train' });
  assert.deepEqual(r.pointers, []);
  assert.deepEqual(r.queue, { baseRef: null, pullRequest: 7, headSha: null, others: null });
  for (const ref of ['refs/merge-requests/7/head', 'refs/merge-requests/7/merge', 'main'])
    assert.equal(ci('Job Hook', { ...job, ref }).queue, undefined, ref);
});

test('a pipeline of a merge train names its base from the merge request', () => {
  const p = fixture('pipeline-hook');
  p.object_attributes = { ...p.object_attributes, ref: 'refs/merge-requests/1/train', status: 'failed' };
  p.merge_request = { ...p.merge_request, target_branch: 'main' };
  assert.deepEqual(ci('Pipeline Hook', p).queue, { baseRef: 'main', pullRequest: 1, headSha: null, others: null });
});
