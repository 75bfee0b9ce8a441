// fixloop wired to the fake GitHub (a real HTTP server checked against GitHub's OpenAPI schemas),
// with a clock the test moves and the poll driven tick by tick instead of by its timer.
import { startFakeGitHub, type FakeGitHub } from './fake-github/server.js';
import { createGitHub } from '../../src/github/client.js';
import { startHarness, RecordingRunner, type Harness } from './harness.js';
import type { Clock } from '../../src/app/ports.js';
import type { FixloopAdapters } from '../../src/main.js';

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

export async function startGitHubHarness(
  kind: 'sqlite' | 'postgres',
  opts: { env?: Record<string, string>; configExtra?: Record<string, unknown>; runner?: RecordingRunner; adapters?: FixloopAdapters } = {},
): Promise<GitHubHarness> {
  const fake = await startFakeGitHub();
  const clock = new FakeClock();
  fake.state.now = () => clock.now();
  const token = fake.addUserToken(BOT_LOGIN);
  const github = createGitHub({ apiUrl: fake.url, auth: { kind: 'token', token }, throttle: { spaceWrites: false }, retry: { backoffUnitMs: 1 } });
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
    async close() {
      await h.close();
      fake.assertNoViolations();
      await fake.close();
    },
  };
}
