// fixloop wired to the fake GitHub (a real HTTP server checked against GitHub's OpenAPI schemas),
// with a clock the test moves and the poll driven tick by tick instead of by its timer.
import { startFakeGitHub, type FakeGitHub } from './fake-github/server.js';
import { createGitHub } from '../../src/github/client.js';
import { startHarness, RecordingRunner, type Harness } from './harness.js';
import type { Clock } from '../../src/app/ports.js';
import type { FixloopAdapters } from '../../src/main.js';
import type { TestDatabase } from './databases.js';

export const BOT_LOGIN = 'fixloop-bot';

export class FakeClock implements Clock {
  constructor(private t = Date.parse('2026-11-30T08:00:00Z')) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface GitHubHarness extends Harness {
  fake: FakeGitHub;
  clock: FakeClock;
  tick(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  configExtra?: Record<string, unknown>;
  runner?: RecordingRunner;
  adapters?: FixloopAdapters;
}

export async function startGitHubHarness(
  kind: 'sqlite' | 'postgres',
  opts: HarnessOptions = {},
): Promise<GitHubHarness> {
  const fake = await startFakeGitHub();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  const h = await openOnFake(kind, { fake, clock, token: fake.addUserToken(BOT_LOGIN) }, opts);
  return {
    ...h,
    async close() {
      await h.close();
      fake.assertNoViolations();
      await fake.close();
    },
  };
}

/**
 * fixloop on a fake GitHub that outlives it, acting as the bot whose token is given. Closing it
 * closes fixloop only (and drops its database unless one was given).
 */
export async function openOnFake(
  kind: 'sqlite' | 'postgres',
  on: { fake: FakeGitHub; clock: FakeClock; token: string },
  opts: HarnessOptions & { db?: TestDatabase } = {},
): Promise<GitHubHarness> {
  const { fake, clock } = on;
  const github = createGitHub({
    apiUrl: fake.url,
    auth: { kind: 'token', token: on.token },
    throttle: { spaceWrites: false },
    retry: { backoffUnitMs: 1 },
  });
  const h = await startHarness(kind, {
    ...opts,
    adapters: { github, clock, startPoll: false, logFetch: { ca: fake.blobCa }, ...opts.adapters },
  });
  return {
    ...h,
    fake,
    clock,
    async tick() {
      await h.app.poller!.tick();
      await h.app.settle();
    },
  };
}

/** A commit sha made of one repeated character, for readable scenarios. */
export const sha = (c: string): string => c.repeat(40).slice(0, 40);

/** Push a new red head on `repository#pr`, let the next poll tick see it; the agent's run (if any) ends right away. */
export async function redHead(
  h: GitHubHarness,
  pr: number,
  c: string,
  output: string,
  repository = 'acme/shop',
): Promise<void> {
  h.clock.advance(120_000);
  h.fake.setHead(repository, pr, sha(c));
  h.fake.addCheckRun(repository, sha(c), {
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    outputSummary: output,
  });
  await h.tick();
  const last = h.runner.starts.at(-1);
  if (last) h.runner.finish(last.runId);
  await h.app.settle();
}

/** The next poll tick (the per-PR lease lasts most of an interval, so time moves on first). */
export async function nextTick(h: GitHubHarness): Promise<void> {
  h.clock.advance(120_000);
  await h.tick();
}
