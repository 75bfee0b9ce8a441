// Issue 34 item 1's proof (decision 0060, docs/adding-a-host.md): a third code host — Acme Forge, a
// fake one in its own folder (test/support/hosts/acme/: webhook receiver, payloads, classifier,
// words, port half and a tiny real HTTP fake of its API) — plugs into fixloop through the host
// registry with no file outside that folder changed. fixloop starts with GitHub, GitLab and Acme; Acme's signed
// delivery of a failed build step on an agent's change request is verified by Acme's receiver,
// classified by Acme into a neutral `ci.result`, and resumes the agent once, in Acme's words; the
// stop notice that follows speaks them too.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { createHostRegistry } from '../../src/app/hosts.js';
import { changeRef } from '../../src/core/change-link.js';
import type { Notice, Work } from '../../src/core/types.js';
import { boardPage } from '../../src/dashboard/board-page.js';
import { githubHost } from '../../src/github/host.js';
import { gitlabHost } from '../../src/gitlab/host.js';
import { createFixloop, type Fixloop } from '../../src/main.js';
import { noticeSinksFromConfig } from '../../src/wiring.js';
import { changeLinksOf } from '../../src/wiring/change-links.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { API_TOKEN, RecordingRunner, SECRET, silentLogger } from '../support/harness.js';
import { acmeHost, ACME_WEBHOOK_PATH, NO_ACME_WORK } from '../support/hosts/acme/host.js';
import { acmeSignature } from '../support/hosts/acme/webhook.js';
import { createAcmeClient } from '../support/hosts/acme/client.js';
import { startFakeAcme, changeKey, type FakeAcme } from '../support/hosts/acme/fake-api.js';

const ACME_SECRET = 'acme-webhook-secret';
const REPOSITORY = 'acme/app';
const sha = (c: string) => c.repeat(40);

test('no source file under src/ knows Acme: its id, name, event, headers and folder are its folder’s own', () => {
  const src = fileURLToPath(new URL('../../src/', import.meta.url));
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
  );
  assert.ok(files.length > 100, `read ${files.length} source files`);
  const known = files.filter((f) =>
    /'acme'|Acme Forge|ACME_|acmeHost|x-acme-|build\.finished|support\/hosts/.test(readFileSync(join(src, f), 'utf8')),
  );
  assert.deepEqual(known, []);
});

test('a change on Acme is written and linked in its own form, through the registry, on the board and in a notice', async () => {
  const works: Work[] = [
    { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] },
    { name: 'lab', account: 'acme', provider: 'gitlab', repositories: [{ name: 'acme/lab', role: 'data' }] },
    { name: 'app', account: 'acme', provider: 'acme', repositories: [{ name: REPOSITORY, role: 'data' }] },
  ];
  const links = changeLinksOf(
    createHostRegistry(
      [
        githubHost({ secrets: [], setupUrl: 'http://127.0.0.1/setup', port: null, webUrl: 'https://ghe.example.com' }),
        gitlabHost({ secrets: [], signingTokens: [], port: null, webUrl: 'https://gitlab.example.com/' }),
        acmeHost({ secret: ACME_SECRET, port: null, webUrl: 'https://forge.example.com/' }),
      ],
      works,
    ),
  );
  assert.deepEqual(changeRef(links, REPOSITORY, 7), {
    label: 'acme/app~7',
    url: 'https://forge.example.com/acme/app/changes/7',
  });
  // The two built-in hosts keep their forms beside it.
  assert.deepEqual(changeRef(links, 'acme/shop', 7), {
    label: 'acme/shop#7',
    url: 'https://ghe.example.com/acme/shop/pull/7',
  });
  assert.deepEqual(changeRef(links, 'acme/lab', 7), {
    label: 'acme/lab!7',
    url: 'https://gitlab.example.com/acme/lab/-/merge_requests/7',
  });

  // The board names the host and links the change request on Acme.
  const board = String(
    await (
      boardPage(
        { csrf: 'c', stopped: false, failedDeliveries: 0, maxAttempts: 2, costCeiling: null, links },
        {},
        [
          {
            id: 1,
            repository: REPOSITORY,
            pullRequest: 7,
            branch: 'agent/7',
            state: 'open',
            ciState: 'red',
            attemptsUsed: 1,
            extraAttempts: 0,
            maxGrants: null,
            spend: 0,
            loopState: 'idle',
            lastFailure: null,
            triage: null,
            createdAt: '2026-12-01T10:00:00.000Z',
          },
        ],
        null,
      ) as { toString(): string | Promise<string> }
    ).toString(),
  );
  assert.ok(board.includes('href="https://forge.example.com/acme/app/changes/7"'), board);
  assert.ok(board.includes('acme/app~7'));
  assert.ok(board.includes('Acme Forge'), 'the link names its host');
  assert.ok(!/acme\/app[#!]7|\/pull\/7|merge_requests\/7/.test(board));

  // A notice sent to Slack links it there too.
  const dir = mkdtempSync(join(tmpdir(), 'fixloop-acme-links-'));
  try {
    const file = join(dir, 'fixloop.json');
    writeFileSync(file, JSON.stringify({ works, notices: { sinks: [{ kind: 'slack' }] } }));
    const config = loadConfig({
      env: { WEBHOOK_SECRET: SECRET, FIXLOOP_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x' },
      file,
      hosts: ['acme'],
    });
    const sent: string[] = [];
    const fakeFetch = (async (_url: string | URL, init?: RequestInit) => {
      sent.push(String(init?.body));
      return new Response(null, { status: 204 });
    }) as typeof fetch;
    const notice: Notice = {
      id: 1,
      taskId: 1,
      reason: 'budget_spent',
      headSha: sha('a'),
      attemptsUsed: 1,
      repository: REPOSITORY,
      pullRequest: 7,
      message: 'fixloop stopped for acme/app~7',
      createdAt: '2026-12-05T10:00:00.000Z',
    };
    const [slack] = noticeSinksFromConfig(config, fakeFetch, links);
    await slack!.send(notice, 'k', new AbortController().signal);
    assert.match(sent[0]!, /<https:\/\/forge\.example\.com\/acme\/app\/changes\/7\|acme\/app~7>/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const kind of DATABASE_KINDS) {
  describe(`a third code host, registered through the registry (issue 34, ${kind})`, () => {
    let fake: FakeAcme;
    let db: TestDatabase;
    let dir: string;
    let file: string;
    let app: Fixloop;
    let url: string;
    const runner = new RecordingRunner();

    before(async () => {
      fake = await startFakeAcme();
      db = await createTestDatabase(kind);
      dir = mkdtempSync(join(tmpdir(), 'fixloop-acme-'));
      file = join(dir, 'fixloop.json');
      // Its configuration: a Work on the host, and the host's id given to the loader.
      writeFileSync(
        file,
        JSON.stringify({
          works: [
            {
              name: 'app',
              account: 'acme',
              provider: 'acme',
              repositories: [{ name: REPOSITORY, role: 'data' }],
            },
          ],
        }),
      );
      const config = loadConfig({
        env: {
          WEBHOOK_SECRET: SECRET,
          GITLAB_WEBHOOK_SECRET: 'gitlab-hook-token',
          FIXLOOP_API_TOKEN: API_TOKEN,
          DATABASE_URL: db.url,
          LOG_LEVEL: 'silent',
          TASK_CI_AUTO_RESUME_MAX_ATTEMPTS: '1',
          PATH: process.env.PATH ?? '',
        },
        file,
        hosts: ['acme'],
      });
      const port = createAcmeClient({ url: fake.url, token: fake.token, login: 'fixloop-bot' });
      app = await createFixloop(config, {
        runner,
        logger: silentLogger,
        startPoll: false,
        hosts: [acmeHost({ secret: ACME_SECRET, port })],
      });
      url = await app.listen(0, '127.0.0.1');
      runner.apiBase = url;
    });
    after(async () => {
      await app?.close();
      await db?.drop();
      await fake?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${API_TOKEN}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    }

    /** Acme's delivery of a finished build step, signed as Acme signs it. */
    async function deliver(
      body: unknown,
      o: { key?: string; secret?: string } = {},
    ): Promise<{ status: number; body: any; key: string }> {
      const key = o.key ?? randomUUID();
      const raw = JSON.stringify(body);
      const res = await fetch(`${url}${ACME_WEBHOOK_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-acme-event': 'build.finished',
          'x-acme-delivery': key,
          'x-acme-signature': acmeSignature(o.secret ?? ACME_SECRET, raw),
        },
        body: raw,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, key };
    }

    /** The agent's head `head` on change request ~7, and a build step that failed on it with `log`. */
    function failedBuild(id: number, head: string, log: string) {
      fake.changes.set(changeKey(REPOSITORY, 7), {
        repository: REPOSITORY,
        number: 7,
        head,
        branch: 'agent/7',
        author: 'agent-bot',
        state: 'open',
        labels: fake.changes.get(changeKey(REPOSITORY, 7))?.labels ?? [],
      });
      const finishedAt = new Date().toISOString();
      fake.builds.push({
        id,
        repository: REPOSITORY,
        sha: head,
        step: 'unit-tests',
        outcome: 'failed',
        finishedAt,
        log,
      });
      return {
        repository: REPOSITORY,
        change: { id: 7, head, branch: 'agent/7' },
        build: { id, step: 'unit-tests', outcome: 'failed', finishedAt, url: `${fake.url}/acme/app/builds/${id}` },
      };
    }

    test('a Work on Acme is a config error until the loader is told of the host', () => {
      const env = { WEBHOOK_SECRET: SECRET, FIXLOOP_API_TOKEN: API_TOKEN, DATABASE_URL: db.url, LOG_LEVEL: 'silent' };
      assert.throws(() => loadConfig({ env, file }), /must be one of github, gitlab: the code hosts fixloop knows/);
      assert.equal(loadConfig({ env, file, hosts: ['acme'] }).works[0]!.provider, 'acme');
    });

    test("an Acme delivery about a repository no acme Work lists is ignored with Acme's own reason", async () => {
      const elsewhere = { ...failedBuild(399, sha('9'), 'FAIL'), repository: 'acme/elsewhere' };
      const sent = await deliver(elsewhere);
      assert.deepEqual([sent.status, sent.body.outcome, sent.body.reason], [200, 'ignored', NO_ACME_WORK]);
      const trail = (await api('GET', `/api/deliveries?delivery=${sent.key}`)).body.decisions;
      assert.deepEqual(
        trail.map((d: any) => [d.outcome, d.reason]),
        [['ignored', NO_ACME_WORK]],
      );
    });

    test('the three hosts each take their own webhook path; a body Acme did not sign is refused', async () => {
      // GitHub's and GitLab's receivers are still there beside Acme's (each refuses an unsigned body).
      for (const path of ['/api/github/webhooks', '/api/gitlab/webhooks']) {
        const res = await fetch(`${url}${path}`, { method: 'POST', body: '{}' });
        await res.text();
        assert.equal(res.status, 401, path);
      }
      const forged = await deliver(failedBuild(400, sha('0'), 'FAIL'), { secret: 'not-acme' });
      assert.equal(forged.status, 401);
      assert.equal(forged.body.error, 'bad_signature');
    });

    test("a failed build step on the agent's change request resumes the agent once, in Acme's words", async () => {
      const created = await api('POST', '/api/tasks', { repository: REPOSITORY, pullRequest: 7, branch: 'agent/7' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const taskId = created.body.id;

      const log = ['$ acme test', 'running 42 tests', 'FAIL total_of_cart', '  expected 3, got 4', 'exit 1'].join('\n');
      const red = failedBuild(501, sha('1'), log);
      const sent = await deliver(red);
      // Verified by Acme's receiver, classified by Acme's classifier into a neutral CI result, stored.
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      assert.equal(sent.body.outcome, 'stored');
      assert.equal(sent.body.identity, `check:${REPOSITORY}@${sha('1')}:run:501:completed:failure`);
      const classified = acmeHost({ secret: ACME_SECRET, port: null }).classify('build.finished', red, sent.key);
      assert.equal(classified.kind === 'event' && classified.event.kind, 'ci.result');
      await app.settle();

      assert.equal(runner.starts.length, 1, 'the agent was resumed');
      const spec = runner.starts[0]!;
      assert.equal(spec.taskId, taskId);
      assert.equal(spec.repository, REPOSITORY);
      assert.equal(spec.pullRequest, 7);
      assert.equal(spec.headSha, sha('1'));
      const trail = (await api('GET', `/api/deliveries?delivery=${sent.key}`)).body.decisions.map(
        (d: any) => d.outcome,
      );
      assert.deepEqual(trail.reverse(), ['stored', 'claimed']);

      // The agent's frame: Acme's words and reference form, and the step's log read through Acme's port.
      assert.match(spec.prompt, /acme\/app~7/);
      assert.match(spec.prompt, /change request/);
      assert.match(spec.prompt, /Read the build first\./);
      assert.match(spec.prompt, /unit-tests/);
      assert.match(spec.prompt, /expected 3, got 4/);
      assert.doesNotMatch(spec.prompt, /pull request|merge request|acme\/app[#!]7/i);
      assert.ok(fake.requests.includes(`GET /api/v1/repos/acme%2Fapp/builds/501/log`), fake.requests.join('\n'));

      // Acme redelivers the same delivery: stored once, the agent resumed once.
      const again = await deliver(red, { key: sent.key });
      assert.equal(again.status, 200);
      assert.equal(again.body.outcome, 'duplicate');
      await app.settle();
      assert.equal(runner.starts.length, 1, 'resumed once');

      // The budget (1) is spent: the next red files the stop notice, in Acme's words.
      runner.finish(spec.runId);
      await app.settle();
      const next = await deliver(failedBuild(502, sha('2'), 'FAIL total_of_cart\n  expected 3, got 5'));
      assert.equal(next.status, 202, JSON.stringify(next.body));
      await app.settle();
      assert.equal(runner.starts.length, 1, 'no second resume');
      const view = (await api('GET', `/api/tasks/${taskId}`)).body;
      assert.equal(view.notice?.reason, 'budget_spent', JSON.stringify(view.notice));
      assert.match(view.notice.message, /^fixloop stopped for acme\/app~7: /);
      assert.match(view.notice.message, /change request/);
      assert.doesNotMatch(view.notice.message, /pull request|merge request|#7|!7/);
    });
  });
}
