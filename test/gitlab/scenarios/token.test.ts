// Issue 19, SPEC Q1/Q3 with A1, C4: the GitLab route trusts nothing before X-Gitlab-Token matches one
// of GITLAB_WEBHOOK_SECRET's entries. A red job that would buy an attempt, sent with a missing or wrong
// token, is 401 and leaves no trace: no event, no decision, no head moved, no attempt, no agent, not
// one call to GitLab. The same hook with the rotated token is then stored and resumes the agent once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DATABASE_KINDS } from '../../support/databases.js';
import { SECRET } from '../../support/harness.js';
import {
  GL_HOOK_TOKENS,
  GL_PROJECT,
  sha,
  startGitLabHarness,
  type GitLabHarness,
} from '../../support/gitlab-harness.js';

async function rows(h: GitLabHarness, table: 'events' | 'decisions' | 'attempts' | 'runs'): Promise<number> {
  const r = await h.app.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

for (const kind of DATABASE_KINDS) {
  describe(`GitLab webhook token (${kind})`, () => {
    test('Q1/A1: a red Job hook with a missing or wrong X-Gitlab-Token is 401 and nothing is stored, moved, claimed or started; the rotated token is accepted', async () => {
      const h = await startGitLabHarness(kind);
      try {
        h.openMergeRequest(5, { headSha: sha('5') });
        const created = await h.api('POST', '/api/tasks', {
          repository: GL_PROJECT,
          pullRequest: 5,
          branch: 'agent/5',
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const [job] = h.runPipeline(5, sha('5'), [{ name: 'test', status: 'failed', trace: 'FAIL x' }]).jobs;
        const red = h.jobHook(job!);
        const before = await Promise.all((['events', 'decisions', 'attempts', 'runs'] as const).map((t) => rows(h, t)));
        const calls = h.fake.requests.length;
        const wrong = [
          null,
          '',
          'gl-hook-token-ol',
          GL_HOOK_TOKENS[0]!.toUpperCase(),
          GL_HOOK_TOKENS.join(','),
          SECRET,
        ];
        for (const token of wrong) {
          const r = await h.hook('Job Hook', red, { token });
          assert.equal(r.status, 401, `token ${JSON.stringify(token)}`);
          assert.equal(r.body.error, 'bad_token');
        }
        // Nor does a wrong token carry any other hook in.
        const note = h.noteHook(5, { body: '/fixloop off', author: 'mallory' });
        assert.equal((await h.hook('Note Hook', note, { token: 'guess' })).status, 401);
        await h.app.settle();
        assert.deepEqual(
          await Promise.all((['events', 'decisions', 'attempts', 'runs'] as const).map((t) => rows(h, t))),
          before,
          'events, decisions, attempts and runs unchanged',
        );
        let view = (await h.api('GET', `/api/tasks/${created.body.id}`)).body;
        assert.equal(view.ciHeadSha, null, 'the head was not moved');
        assert.equal(view.loopOff, false);
        assert.equal(h.runner.starts.length, 0);
        assert.equal(h.fake.requests.length, calls, 'GitLab was not asked anything on its behalf');

        const ok = await h.hook('Job Hook', red, { token: GL_HOOK_TOKENS[1]! });
        assert.equal(ok.status, 202, JSON.stringify(ok.body));
        await h.app.settle();
        view = (await h.api('GET', `/api/tasks/${created.body.id}`)).body;
        assert.equal(view.ciHeadSha, sha('5'));
        assert.equal(view.attempts.length, 1);
        assert.equal(h.runner.starts.length, 1, 'the same hook with the rotated token resumes the agent');
      } finally {
        await h.close();
      }
    });
  });
}
