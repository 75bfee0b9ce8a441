// Q1 (decision 0034): each call goes to its repository's provider; a host without credentials
// answers 404 for its own repositories and never touches the other host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routeByProvider } from '../../test/support/host-registry.js';
import { ProviderError, type ProviderPort } from './provider-port.js';
import type { Work } from '../core/types.js';

const WORKS = [
  { name: 'shop', account: 'acme', repositories: [{ name: 'acme/shop', role: 'data' }] },
  { name: 'lab', account: 'grp', provider: 'gitlab', repositories: [{ name: 'Grp/Sub/Lab', role: 'data' }] },
] as unknown as Work[];

const OPTIONAL = new Set([
  'readJobLog',
  'authorAssociation',
  'repositoryPermission',
  'labelActor',
  'glancePullRequests',
  'readPullRequests',
  'rateLimits',
]);

/** A port that records which host each call reached; of the optional methods, only those given. */
function recording(host: string, calls: string[], extra: Partial<ProviderPort> = {}): ProviderPort {
  return new Proxy(extra as ProviderPort, {
    get(target, name: string) {
      if (name in target) return (target as unknown as Record<string, unknown>)[name];
      if (name === 'then' || OPTIONAL.has(name)) return undefined;
      return async (...args: unknown[]) => {
        calls.push(`${host}.${name}(${String(args[0])})`);
        return name === 'selfLogin' ? `${host}-bot` : [];
      };
    },
  });
}

test('a gitlab Work’s project goes to GitLab (any case), every other repository to GitHub', async () => {
  const calls: string[] = [];
  const port = routeByProvider({ github: recording('github', calls), gitlab: recording('gitlab', calls) }, WORKS)!;
  await port.listCheckRuns('grp/sub/lab', 'sha');
  await port.listCheckRuns('acme/shop', 'sha');
  await port.listIssueComments('someone/else', 1);
  assert.deepEqual(calls, [
    'gitlab.listCheckRuns(grp/sub/lab)',
    'github.listCheckRuns(acme/shop)',
    'github.listIssueComments(someone/else)',
  ]);
  assert.equal(await port.selfLogin('grp/sub/lab'), 'gitlab-bot');
  assert.equal(await port.selfLogin('acme/shop'), 'github-bot');
});

test('without GitLab credentials a GitLab project is unreadable (404 from GitLab), and GitHub is never asked', async () => {
  const calls: string[] = [];
  const port = routeByProvider({ github: recording('github', calls), gitlab: null }, WORKS)!;
  await assert.rejects(port.getPullRequest('grp/sub/lab', 1), (err: unknown) => {
    assert.ok(err instanceof ProviderError);
    assert.equal(err.status, 404);
    assert.equal(err.provider, 'gitlab');
    return true;
  });
  assert.deepEqual(calls, []);
});

test('N3’s bulk reads are GitHub’s: a GitLab project gets an empty answer, so the poll reads one by one', async () => {
  const calls: string[] = [];
  const glance = async () => new Map([[1, {} as never]]);
  const github = recording('github', calls, { glancePullRequests: glance });
  const port = routeByProvider({ github, gitlab: recording('gitlab', calls) }, WORKS)!;
  assert.equal((await port.glancePullRequests!('grp/sub/lab', [1])).size, 0);
  assert.equal((await port.glancePullRequests!('acme/shop', [1])).size, 1);
});

test('a host that serves no job log itself (GitHub) answers null, so the log is read through its signed URL', async () => {
  const calls: string[] = [];
  const gitlab = recording('gitlab', calls, { readJobLog: async () => ({ text: 'trace', truncated: false }) });
  const port = routeByProvider({ github: recording('github', calls), gitlab }, WORKS)!;
  assert.equal(await port.readJobLog!('acme/shop', 1, { lines: 10 }), null);
  assert.deepEqual(await port.readJobLog!('grp/sub/lab', 1, { lines: 10 }), { text: 'trace', truncated: false });
});

test('with no gitlab Work the GitHub port is used as it is', () => {
  const github = recording('github', []);
  assert.equal(routeByProvider({ github, gitlab: null }, [WORKS[0]!]), github);
});

test('F1/F2 (decision 0042): a repository permission is GitHub’s; a GitLab project cannot say (throws, so unreadable)', async () => {
  const calls: string[] = [];
  const github = recording('github', calls, {
    repositoryPermission: async (r, login) => (calls.push(`github.repositoryPermission(${r}, ${login})`), 'write'),
  });
  const port = routeByProvider({ github, gitlab: recording('gitlab', calls) }, WORKS)!;
  assert.equal(await port.repositoryPermission!('acme/shop', 'alice'), 'write');
  await assert.rejects(port.repositoryPermission!('grp/sub/lab', 'alice'), (e) => e instanceof ProviderError);
  await assert.rejects(port.labelActor!('grp/sub/lab', 1, 'x'), (e) => e instanceof ProviderError);
  assert.deepEqual(calls, ['github.repositoryPermission(acme/shop, alice)']);
});
