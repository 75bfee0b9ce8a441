// T1 bounded (issue 31, decision 0047): a base branch whose checks do not answer costs one short wait,
// is remembered as not known for a while, and is told once until it answers again.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBaseChecks } from './base-checks.js';
import type { CheckRunInfo } from './provider-port.js';

function setup(answer: () => Promise<CheckRunInfo[]>) {
  let now = Date.parse('2026-12-04T12:00:00Z');
  const reads: string[] = [];
  const logged: Array<{ level: string; msg: string }> = [];
  const log = (level: string) => (_obj: object, msg?: string) => logged.push({ level, msg: msg ?? '' });
  const baseChecks = createBaseChecks({
    host: {
      getPullRequest: async () => ({ baseRef: 'main' }) as never,
      listCheckRuns: async (_r, ref) => {
        reads.push(ref);
        return answer();
      },
      listStatuses: async () => [],
    },
    clock: { now: () => new Date(now) },
    ttlMs: 120_000,
    timeoutMs: 50,
    retryAfterMs: 60_000,
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } as never,
  });
  return { baseChecks, reads, logged, advance: (ms: number) => (now += ms) };
}

const red: CheckRunInfo = {
  id: 1,
  name: 'test',
  status: 'completed',
  conclusion: 'failure',
  startedAt: null,
  completedAt: null,
  detailsUrl: null,
  appSlug: null,
  outputTitle: null,
  outputSummary: null,
};

describe('base checks, bounded (T1, issue 31)', () => {
  it('a read that never answers is not known after the timeout; the reds after it do not wait or ask again', async () => {
    let mode: 'hang' | 'answer' = 'hang';
    const s = setup(() => (mode === 'hang' ? new Promise<never>(() => undefined) : Promise.resolve([red])));
    // Ordered against timers, not the wall clock (a loaded machine runs timers late, never early): the
    // read gives up at its 50 ms timeout, before a timer of the default 3 s would fire ...
    let defaultPassed = false;
    const sentinel = setTimeout(() => (defaultPassed = true), 3_000);
    assert.equal(await s.baseChecks('acme/shop', 1, 'main'), null);
    clearTimeout(sentinel);
    assert.equal(defaultPassed, false, 'gave up at its own timeout');
    // ... and the reds after it answer without any timer running at all: no second wait.
    let aTimerRan = false;
    const tick = setTimeout(() => (aTimerRan = true), 0);
    for (let pr = 2; pr <= 5; pr++) assert.equal(await s.baseChecks('acme/shop', pr, 'main'), null);
    clearTimeout(tick);
    assert.equal(aTimerRan, false, 'remembered as not known: no second wait');
    assert.deepEqual(s.reads, ['main']);
    assert.equal(s.logged.filter((l) => l.level === 'warn').length, 1);

    // Still silent when asked again after the pause: asked once more, told nothing new.
    s.advance(60_000);
    assert.equal(await s.baseChecks('acme/shop', 6, 'main'), null);
    assert.deepEqual(s.reads, ['main', 'main']);
    assert.equal(s.logged.filter((l) => l.level === 'warn').length, 1, 'once per episode');

    // It answers again: the hold works, and that is said once.
    mode = 'answer';
    s.advance(60_000);
    assert.deepEqual(await s.baseChecks('acme/shop', 7, 'main'), { ref: 'main', failing: ['test'] });
    assert.equal(s.logged.filter((l) => l.level === 'info').length, 1);
    assert.deepEqual(await s.baseChecks('acme/shop', 8, 'main'), { ref: 'main', failing: ['test'] });
    assert.equal(s.reads.length, 3, 'a good answer is kept for the interval');
  });

  it('a read that fails is not known, and remembered so for the pause', async () => {
    const s = setup(() => Promise.reject(new Error('connect ECONNREFUSED')));
    assert.equal(await s.baseChecks('acme/shop', 1, null), null);
    assert.equal(await s.baseChecks('acme/shop', 1, null), null);
    assert.deepEqual(s.reads, ['main']);
  });
});
