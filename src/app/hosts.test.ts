// The host registry (decision 0060): ids and webhook paths are one per host, every Work names a
// registered host, a repository reaches its Work's host (the first host for one no Work names), and a
// stored delivery is classified again by the host that owns its event name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHostRegistry, type Host } from './hosts.js';
import type { Work } from '../core/types.js';
import { GITHUB_WORDS } from '../github/words.js';

function host(id: string, event: string): Host {
  return {
    id,
    words: { ...GITHUB_WORDS, name: id },
    webUrl: `https://${id}.example.com`,
    noWorkReason: `no_${id}_work`,
    webhook: { path: `/api/${id}/webhooks`, receiver: () => async () => undefined },
    ownsEvent: (name) => name === event,
    classify: () => ({ kind: 'ignored', reason: 'ping', identity: `${id}:ping`, repository: null }),
    port: () => null,
  };
}

const work = (name: string, repository: string, provider?: string): Work => ({
  name,
  account: repository.split('/')[0]!,
  ...(provider ? { provider } : {}),
  repositories: [{ name: repository, role: 'data' }],
});

test('a repository reaches its Work’s host; one no Work names, the first host', () => {
  const r = createHostRegistry([host('one', 'a'), host('two', 'b')], [work('w', 'acme/App', 'two')]);
  assert.equal(r.hostOfRepository('acme/app').id, 'two');
  assert.equal(r.hostOfRepository('other/repo').id, 'one');
  assert.equal(r.byWebhookPath('/api/two/webhooks')?.id, 'two');
  assert.equal(r.byWebhookPath('/api/three/webhooks'), undefined);
});

test('a stored delivery is classified by the host that owns its event name', () => {
  const r = createHostRegistry([host('one', 'a'), host('two', 'b')], []);
  assert.deepEqual(r.classify('b', {}, 'd1'), {
    kind: 'ignored',
    reason: 'ping',
    identity: 'two:ping',
    repository: null,
  });
  assert.deepEqual(r.classify('c', {}, 'd1'), { kind: 'unknown_event' });
});

test('two hosts with one id or one webhook path, or a Work on a host nobody registered, are refused', () => {
  assert.throws(() => createHostRegistry([], []), /at least one code host/);
  assert.throws(() => createHostRegistry([host('one', 'a'), host('one', 'b')], []), /share the id one/);
  const same = { ...host('two', 'b'), webhook: host('one', 'a').webhook };
  assert.throws(() => createHostRegistry([host('one', 'a'), same], []), /share the webhook path/);
  assert.throws(
    () => createHostRegistry([host('one', 'a')], [work('shop', 'acme/shop', 'acme')]),
    /the Work "shop" names the code host "acme", which is not registered \(one\)/,
  );
});
