// Issue 31: FIXLOOP_AGENT_URL is where a resumed agent reaches fixloop (its run spec, hence
// FIXLOOP_API_URL and the MCP entry of the command runner), while FIXLOOP_PUBLIC_URL stays the address
// people use — the commit status links there. Unset, the agents are told the public URL as before.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGitHubHarness, sha, type GitHubHarness } from '../support/github-harness.js';
import { loadConfig } from '../../src/config/config.js';

const REPO = 'acme/shop';
const PEOPLE = 'https://fixloop.example.com';
const AGENTS = 'http://fixloop-agents.internal:3000';

async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) assert.fail(`${what}: not yet`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('agents and people at separate addresses (issue 31)', () => {
  test("a resumed agent is told the agent URL; the commit status links to the people's URL", async () => {
    const h: GitHubHarness = await startGitHubHarness('sqlite', {
      env: { FIXLOOP_PUBLIC_URL: PEOPLE, FIXLOOP_AGENT_URL: `${AGENTS}/` },
      adapters: { commitStatusEveryMs: 20 },
    });
    try {
      const { body: task } = await h.api('POST', '/api/tasks', { repository: REPO, pullRequest: 41, branch: 'a/b' });
      h.fake.addPull(REPO, 41, { headSha: sha('1'), headRef: 'a/b' });
      h.clock.advance(120_000);
      h.fake.addCheckRun(REPO, sha('1'), {
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        outputSummary: 'x',
      });
      await h.tick();
      assert.equal(h.runner.starts.length, 1);
      assert.equal(h.runner.starts[0]!.apiUrl, AGENTS, 'the agent reaches fixloop at the agent URL');
      const own = () => (h.fake.state.statuses[`${REPO}@${sha('1')}`] ?? []).filter((s) => s.context === 'fixloop');
      await until('the fixloop status', () => own().length > 0);
      assert.equal(own().at(-1)!.targetUrl, `${PEOPLE}/tasks/${task.id}`, 'people follow the public URL');
    } finally {
      await h.close();
    }
  });

  test('unset, FIXLOOP_AGENT_URL is the public URL', () => {
    const c = loadConfig({ env: { WEBHOOK_SECRET: 's', FIXLOOP_PUBLIC_URL: `${PEOPLE}/` } });
    assert.deepEqual([c.publicUrl, c.agentUrl], [PEOPLE, PEOPLE]);
    const both = loadConfig({ env: { WEBHOOK_SECRET: 's', FIXLOOP_PUBLIC_URL: PEOPLE, FIXLOOP_AGENT_URL: AGENTS } });
    assert.deepEqual([both.publicUrl, both.agentUrl], [PEOPLE, AGENTS]);
  });
});
