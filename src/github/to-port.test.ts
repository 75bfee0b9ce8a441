// Issue 31: GitHub's API answers are cleaned of control and bidirectional characters as they are mapped.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { toCheckRun, toCommitStatus, toIssueComment, toPullRequest, toReview } from './to-port.js';
import { toReadings } from './graphql-poll.js';

describe('GitHub answers mapped to the port (issue 31)', () => {
  it('a pull request: branch, base, author and labels without NUL, RLO or isolates', () => {
    const pr = toPullRequest({
      number: 5,
      state: 'open',
      merged_at: null,
      head: { sha: 'a'.repeat(40), ref: 'agent/x\u0000\u202Eexe.txt', repo: { full_name: 'Acme/Shop' } },
      base: { ref: 'ma\u2066in', repo: { full_name: 'Acme/Shop' } },
      user: { login: 'bo\u200Fb' },
      labels: [{ name: 'fixloop:\u0085skip' }],
      updated_at: '2026-12-04T00:00:00Z',
    });
    assert.equal(pr.headRef, 'agent/xexe.txt');
    assert.equal(pr.baseRef, 'main');
    assert.equal(pr.author, 'bob');
    assert.deepEqual(pr.labels, ['fixloop:skip']);
  });

  it('a check run, a status, a review and a comment: names one line, bodies keep their lines', () => {
    const run = toCheckRun({
      id: 1,
      name: 'te\u202Dst\u0000',
      status: 'completed',
      conclusion: 'failure',
      started_at: null,
      completed_at: null,
      details_url: null,
      app: null,
      output: { title: 'bad\nthing', summary: 'line 1\n\u202Eline 2' },
    });
    assert.equal(run.name, 'test');
    assert.equal(run.outputTitle, 'bad thing');
    assert.equal(run.outputSummary, 'line 1\nline 2');
    const status = toCommitStatus({
      context: 'ci/\u061Clint',
      state: 'failure',
      description: 'x\u0007',
      target_url: null,
      updated_at: null,
    });
    assert.equal(status.context, 'ci/lint');
    assert.equal(status.description, 'x');
    const review = toReview({
      id: 2,
      state: 'CHANGES_REQUESTED',
      body: 'fix\u2067 this\r\nplease\u0000',
      user: { login: 'ma\u202Ary', type: 'User' },
      commit_id: null,
    });
    assert.equal(review.body, 'fix this\r\nplease');
    assert.equal(review.author, 'mary');
    assert.equal(
      toIssueComment({ id: 3, body: 'b', user: { login: 'e\u200Eve' }, updated_at: '2026-12-04T00:00:00Z' }).author,
      'eve',
    );
  });

  it("the poll's bulk GraphQL reading is cleaned the same way", () => {
    const oid = 'c'.repeat(40);
    const readings = toReadings(
      {
        repository: {
          pr5: {
            number: 5,
            state: 'OPEN',
            merged: false,
            headRefOid: oid,
            updatedAt: '2026-12-04T00:00:00Z',
            headRefName: 'agent/\u202Efdp.exe\u0000',
            baseRefName: 'main',
            author: { login: 'm\u2066al' },
            labels: { nodes: [{ name: 'l\u009fx' }] },
            commits: {
              nodes: [
                {
                  commit: {
                    oid,
                    statusCheckRollup: {
                      state: 'FAILURE',
                      contexts: {
                        pageInfo: { hasNextPage: false },
                        nodes: [
                          {
                            __typename: 'CheckRun',
                            databaseId: 1,
                            name: 'unit\u200F',
                            status: 'COMPLETED',
                            conclusion: 'FAILURE',
                            summary: 'a\n\u202Eb',
                          },
                          {
                            __typename: 'StatusContext',
                            context: 'ci/\u202Dx',
                            state: 'FAILURE',
                            createdAt: '2026-12-04T00:00:00Z',
                          },
                        ],
                      },
                    },
                  },
                },
              ],
            },
          },
        },
      },
      'acme/shop',
    );
    const r = readings.get(5)!;
    assert.equal(r.pr.headRef, 'agent/fdp.exe');
    assert.equal(r.pr.author, 'mal');
    assert.deepEqual(r.pr.labels, ['lx']);
    assert.equal(r.runs[0]!.name, 'unit');
    assert.equal(r.runs[0]!.outputSummary, 'a\nb');
    assert.equal(r.statuses[0]!.context, 'ci/x');
  });
});
