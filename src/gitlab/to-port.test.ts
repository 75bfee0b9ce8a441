// Issue 31: GitLab's API answers are cleaned of control and bidirectional characters as they are mapped.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { toCheckRun, toCommitStatus, toPullRequest, toReviews } from './to-port.js';

describe('GitLab answers mapped to the port (issue 31)', () => {
  it('a merge request: source and target branch, author and labels without NUL, RLO or isolates', () => {
    const mr = toPullRequest(
      'Group/Project',
      {
        iid: 9,
        state: 'opened',
        sha: 'b'.repeat(40),
        source_branch: 'agent/y\u0000\u202Egpj.exe',
        target_branch: 'ma\u2068in',
        source_project_id: 1,
        target_project_id: 1,
        author: { username: 'ali\u200Ece' },
        labels: ['fix\u009bloop', { name: 'x\u202Cy' }],
        updated_at: '2026-12-04T00:00:00Z',
      },
      null,
    );
    assert.equal(mr.headRef, 'agent/ygpj.exe');
    assert.equal(mr.baseRef, 'main');
    assert.equal(mr.author, 'alice');
    assert.deepEqual(mr.labels, ['fixloop', 'xy']);
  });

  it('a job, a status and a review: names one line, the review body keeps its lines', () => {
    const job = toCheckRun(
      { id: 1, name: 'rspec\u202E 1/2', status: 'failed', started_at: null, finished_at: null, web_url: null },
      'boom\n\u0000done',
    );
    assert.equal(job.name, 'rspec 1/2');
    assert.equal(job.outputSummary, 'boom\ndone');
    const status = toCommitStatus({
      id: 2,
      name: 'ext\u2069/ci',
      status: 'failed',
      description: 'no\u0000pe',
      target_url: null,
      created_at: null,
    });
    assert.equal(status.context, 'ext/ci');
    assert.equal(status.description, 'nope');
    const [review] = toReviews(
      [{ user: { id: 5, username: 'bo\u202Bb' }, state: 'requested_changes' }],
      [
        {
          id: 7,
          body: 'please\n\u202Efix',
          author: { username: 'bo\u202Bb' },
          system: false,
          updated_at: '2026-12-04T00:00:00Z',
        },
      ],
    );
    assert.equal(review!.author, 'bob');
    assert.equal(review!.body, 'please\nfix');
  });
});
