// Controls on the pull request (issue 16, F1 standing, K5, H1): `/fixloop off|on|retry|status` from a
// person with standing steers the loop, recorded as that person's action; from anyone else it is
// recorded and changes nothing. The label `fixloop:skip` keeps the loop away while it is on.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../support/databases.js';
import { REPO, SECRET } from '../support/harness.js';
import { redHead, sha, startGitHubHarness, type GitHubHarness } from '../support/github-harness.js';
import { delivery, post, prCommentPayload, pullRequestPayload } from '../support/deliveries.js';

const REPO_NAME = 'acme/shop';

async function comment(h: GitHubHarness, pr: number, body: string, association = 'MEMBER', author = 'alice') {
  const d = delivery('issue_comment', prCommentPayload({ repo: REPO, number: pr, body, author, association }));
  assert.equal((await post(h.url, d, SECRET)).status, 202);
  await h.app.settle();
}

async function decisions(h: GitHubHarness, taskId: number): Promise<Array<[string, string | null, string | null]>> {
  const rows = (await h.api('GET', `/api/deliveries?taskId=${taskId}&limit=200`)).body.decisions as any[];
  return rows.map((d) => [d.outcome, d.reason, d.detail]);
}

async function task(h: GitHubHarness, pr: number): Promise<number> {
  const { body } = await h.api('POST', '/api/tasks', { repository: REPO_NAME, pullRequest: pr, branch: 'agent/a' });
  h.fake.addPull(REPO_NAME, pr, { headSha: sha('0'), headRef: 'agent/a' });
  // Standing is the repository's word (decision 0042): alice may push.
  h.fake.setCollaborator(REPO_NAME, 'alice', 'write');
  return body.id;
}

for (const kind of DATABASE_KINDS) {
  describe(`comment commands on the pull request (${kind})`, () => {
    test('/fixloop off keeps the loop away (a red resumes nothing), /fixloop on brings it back; each recorded as the person’s', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const id = await task(h, 31);
        await comment(h, 31, '/fixloop off');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, true);
        assert.ok(
          (await decisions(h, id)).some(
            ([o, r, d]) => o === 'acted' && r === 'loop_off' && /a person \(comment by @alice\)/.test(d ?? ''),
          ),
        );
        await redHead(h, 31, '1', 'failure one');
        assert.equal(h.runner.starts.length, 0, 'off: nothing resumed');

        await comment(h, 31, '/fixloop on\nthanks');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, false);
        await redHead(h, 31, '2', 'failure two');
        assert.equal(h.runner.starts.length, 1, 'on again: the next red resumes the agent');
      } finally {
        await h.close();
      }
    });

    test('a command from an author without standing is recorded and changes nothing', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const id = await task(h, 32);
        await comment(h, 32, '/fixloop off', 'CONTRIBUTOR', 'stranger');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, false);
        const refused = (await decisions(h, id)).find(([, r]) => r === 'command_without_standing');
        assert.ok(refused, 'recorded');
        assert.match(refused[2] ?? '', /\/fixloop off by stranger/);
        assert.ok(!(await decisions(h, id)).some(([o]) => o === 'acted'));
      } finally {
        await h.close();
      }
    });

    test('/fixloop retry after a stop grants exactly one more attempt; before any stop it is refused with why', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      try {
        const id = await task(h, 33);
        await comment(h, 33, '/fixloop retry');
        const early = (await decisions(h, id)).find(([, r]) => r === 'command_not_applied');
        assert.match(early?.[2] ?? '', /nothing to approve/);

        await redHead(h, 33, '1', 'failure one');
        await redHead(h, 33, '2', 'failure two'); // the budget of 1 is spent: the loop stops
        assert.equal(h.runner.starts.length, 1);
        assert.ok((await h.api('GET', `/api/tasks/${id}`)).body.notice);
        await comment(h, 33, '/fixloop retry');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.extraAttempts, 1);
        await redHead(h, 33, '3', 'failure three');
        assert.equal(h.runner.starts.length, 2, 'one more attempt past the cap');
      } finally {
        await h.close();
      }
    });

    test('F1/P1: a read-only collaborator’s /fixloop off and /fixloop on change nothing (standing is write access, decision 0042)', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const id = await task(h, 37);
        h.fake.setCollaborator(REPO_NAME, 'reader', 'read');
        await comment(h, 37, '/fixloop off', 'COLLABORATOR', 'reader');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, false, 'off refused');
        await comment(h, 37, '/fixloop off'); // alice may push: applied
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, true);
        await comment(h, 37, '/fixloop on', 'COLLABORATOR', 'reader');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, true, 'on refused');
        const refused = (await decisions(h, id)).filter(([, r]) => r === 'command_without_standing');
        assert.equal(refused.length, 2);
        for (const [, , d] of refused) assert.match(d ?? '', /by reader \(COLLABORATOR, permission read\)/);
      } finally {
        await h.close();
      }
    });

    test('F1/K5: /fixloop retry from an organization MEMBER without access to the repository grants nothing; a write collaborator’s does', async () => {
      const h = await startGitHubHarness(kind, { env: { TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1' } });
      try {
        const id = await task(h, 38);
        await redHead(h, 38, '1', 'failure one');
        await redHead(h, 38, '2', 'failure two'); // the budget of 1 is spent: the loop stops
        assert.ok((await h.api('GET', `/api/tasks/${id}`)).body.notice);
        await comment(h, 38, '/fixloop retry', 'MEMBER', 'org-member'); // GitHub answers 404: no collaborator
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.extraAttempts, 0);
        const refused = (await decisions(h, id)).find(([, r]) => r === 'command_without_standing');
        assert.match(refused?.[2] ?? '', /\/fixloop retry by org-member \(MEMBER, permission none\)/);
        await redHead(h, 38, '3', 'failure three');
        assert.equal(h.runner.starts.length, 1, 'no attempt granted');

        await comment(h, 38, '/fixloop retry', 'COLLABORATOR', 'alice');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.extraAttempts, 1);
      } finally {
        await h.close();
      }
    });

    test('F1/P1: a command whose author GitHub cannot vouch for right now is refused standing_unreadable; sent again, it applies', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const id = await task(h, 39);
        h.fake.failNext(/\/collaborators\/alice\/permission$/, [403]);
        await comment(h, 39, '/fixloop off');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, false);
        const refused = (await decisions(h, id)).find(([, r]) => r === 'standing_unreadable');
        assert.match(refused?.[2] ?? '', /\/fixloop off by alice: the permission on the repository could not be read/);
        await comment(h, 39, '/fixloop off');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.loopOff, true, 'asked again, it is honoured');
        assert.equal(h.fake.requestsTo(/\/collaborators\/alice\/permission$/).length, 2);
      } finally {
        await h.close();
      }
    });

    test('/fixloop status answers on the pull request with the loop’s state', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const id = await task(h, 34);
        await comment(h, 34, '/fixloop off');
        await comment(h, 34, '/fixloop status');
        const answers = (h.fake.state.comments[`${REPO_NAME}#34`] ?? []).map((c) => c.body);
        const answer = answers.find((b) => b.startsWith('fixloop: the loop is'));
        assert.ok(answer, `answered: ${JSON.stringify(answers)}`);
        assert.match(answer, /\*\*off\*\*/);
        assert.match(answer, /0 of 2 automatic attempts used/);
        assert.ok(!(await decisions(h, id)).some(([, r]) => r === 'command_not_applied'));
      } finally {
        await h.close();
      }
    });

    test('the fixloop:skip label keeps the loop away while it is on, seen by the poll; removing it brings it back', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const id = await task(h, 35);
        h.fake.state.pulls[`${REPO_NAME}#35`]!.labels = ['fixloop:skip'];
        await redHead(h, 35, '1', 'failure one');
        assert.equal(h.runner.starts.length, 0, 'skipped: nothing resumed');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.skipLabel, true);
        assert.ok((await decisions(h, id)).some(([o, r]) => o === 'refused' && r === 'skip_label'));
        assert.ok(
          (await decisions(h, id)).some(
            ([o, r, d]) =>
              o === 'acted' && r === 'loop_off' && /label fixloop:skip added, seen by the poll/.test(d ?? ''),
          ),
        );
        h.fake.state.pulls[`${REPO_NAME}#35`]!.labels = [];
        await redHead(h, 35, '2', 'failure two');
        assert.equal(h.runner.starts.length, 1, 'label removed: the next red resumes the agent');
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.skipLabel, false);
      } finally {
        await h.close();
      }
    });

    test('the fixloop:skip label seen by a pull_request webhook turns the loop away at once', async () => {
      const h = await startGitHubHarness(kind);
      try {
        const id = await task(h, 36);
        const labeled = pullRequestPayload({
          repo: REPO,
          number: 36,
          action: 'labeled',
          headSha: sha('0'),
          branch: 'agent/a',
          labels: ['bug', 'fixloop:skip'],
        });
        assert.equal((await post(h.url, delivery('pull_request', labeled), SECRET)).status, 202);
        await h.app.settle();
        assert.equal((await h.api('GET', `/api/tasks/${id}`)).body.skipLabel, true);
        assert.ok((await decisions(h, id)).some(([o, , d]) => o === 'acted' && /seen by the webhook/.test(d ?? '')));
      } finally {
        await h.close();
      }
    });
  });
}
