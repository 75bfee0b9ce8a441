// SPEC V1: Results from hand-made histories — each figure checked against what a person counts by hand.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeResults,
  percentile,
  resolvePeriod,
  UNKNOWN_CHECK,
  type ResultsRows,
  type ResultsTask,
} from './results.js';

const period = { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' };
const at = (day: number, hh = 10, mm = 0) =>
  `2026-11-${String(day).padStart(2, '0')}T${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}:00.000Z`;

function task(id: number, over: Partial<ResultsTask> = {}): ResultsTask {
  return {
    id,
    repository: 'acme/shop',
    agent: 'command: claude-code-resume',
    greenAt: null,
    greenSha: null,
    headSha: null,
    headSeenAt: null,
    ...over,
  };
}

const empty: ResultsRows = { tasks: [], reds: [], attempts: [], otherSpend: [], personActs: [], notices: [] };
const rows = (r: Partial<ResultsRows>): ResultsRows => ({ ...empty, ...r });

describe('Results (V1)', () => {
  test('V1: a pull request with one red, one attempt and a green with nobody between is green without a person', () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1, { greenAt: at(2, 10, 30), greenSha: 'b', headSha: 'b', headSeenAt: at(2, 10, 5) })],
        reds: [{ taskId: 1, at: at(2), check: 'test' }],
        attempts: [{ taskId: 1, at: at(2), check: 'test', spend: 1.5 }],
      }),
    );
    assert.equal(r.total.pullRequests, 1);
    assert.equal(r.total.green, 1);
    assert.equal(r.total.greenWithoutPerson, 1);
    assert.equal(r.total.fixRate, 1);
    assert.equal(r.total.attemptsPerGreen, 1);
    assert.equal(r.total.spendPerGreen, 1.5);
    assert.deepEqual(r.total.timeToGreenMinutes, { median: 30, p90: 30, samples: [30] });
    assert.equal(r.total.changedByPerson, 0);
  });

  test("V1: a person's action between first red and green makes the green a person's, not the loop's", () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1, { greenAt: at(2, 12) })],
        reds: [{ taskId: 1, at: at(2), check: 'test' }],
        attempts: [{ taskId: 1, at: at(2), check: 'test', spend: 1 }],
        personActs: [{ taskId: 1, at: at(2, 11) }],
      }),
    );
    assert.equal(r.total.green, 1);
    assert.equal(r.total.greenWithoutPerson, 0);
    assert.equal(r.total.attemptsPerGreen, null, 'no green without a person: no ratio');
    assert.deepEqual(r.total.timeToGreenMinutes.samples, []);
  });

  test("V1: a person's action before the first red or after green does not count against the loop", () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1, { greenAt: at(2, 12) })],
        reds: [{ taskId: 1, at: at(2) }].map((x) => ({ ...x, check: 'test' })),
        personActs: [
          { taskId: 1, at: at(1) },
          { taskId: 1, at: at(3) },
        ],
      }),
    );
    assert.equal(r.total.greenWithoutPerson, 1);
  });

  test('V1: a hand-off between first red and green makes the green a person’s, and counts by its reason', () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1, { greenAt: at(3) }), task(2)],
        reds: [
          { taskId: 1, at: at(2), check: 'lint' },
          { taskId: 2, at: at(4), check: 'test' },
        ],
        notices: [
          { taskId: 1, at: at(2, 11), reason: 'budget_spent' },
          { taskId: 2, at: at(4, 11), reason: 'unchanged_failure' },
          { taskId: 2, at: at(5, 11), reason: 'unchanged_failure' },
        ],
      }),
    );
    assert.equal(r.total.greenWithoutPerson, 0);
    assert.deepEqual(r.total.handOffs, [
      { reason: 'unchanged_failure', count: 2 },
      { reason: 'budget_spent', count: 1 },
    ]);
  });

  test('V1: a green before the first red of the period is not the loop’s green', () => {
    const r = computeResults(
      period,
      rows({ tasks: [task(1, { greenAt: at(1) })], reds: [{ taskId: 1, at: at(2), check: 'test' }] }),
    );
    assert.equal(r.total.pullRequests, 1);
    assert.equal(r.total.green, 0);
  });

  test('V1: a Task with rows only outside the period is not touched; rows at `to` are outside, at `from` inside', () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1), task(2), task(3)],
        reds: [
          { taskId: 1, at: '2026-10-31T23:59:59.999Z', check: 'test' },
          { taskId: 2, at: period.to, check: 'test' },
          { taskId: 3, at: period.from, check: 'test' },
        ],
      }),
    );
    assert.equal(r.total.pullRequests, 1);
    assert.deepEqual(
      r.byCheck.map((c) => [c.check, c.pullRequests]),
      [['test', 1]],
    );
  });

  test('V1: time to green is from the first red or attempt of the period, median and p90 by nearest rank', () => {
    const greens = [10, 20, 30, 40, 50, 60, 70, 80, 90, 600];
    const tasks = greens.map((m, i) =>
      task(i + 1, { greenAt: new Date(Date.parse(at(2)) + m * 60_000).toISOString() }),
    );
    const r = computeResults(
      period,
      rows({
        tasks,
        // The red of each is at 10:00; the first attempt's time is later and does not move the start.
        reds: tasks.map((t) => ({ taskId: t.id, at: at(2), check: 'test' })),
        attempts: tasks.map((t) => ({ taskId: t.id, at: at(2, 10, 5), check: 'test', spend: 0 })),
      }),
    );
    assert.equal(r.total.timeToGreenMinutes.median, 50);
    assert.equal(r.total.timeToGreenMinutes.p90, 90);
    assert.deepEqual(r.total.timeToGreenMinutes.samples, greens);
  });

  test('V1: spend and attempts per green pull request are the totals over the pull requests green without a person', () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1, { greenAt: at(2, 12) }), task(2, { greenAt: at(3, 12) }), task(3)],
        attempts: [
          { taskId: 1, at: at(2), check: 'test', spend: 1 },
          { taskId: 2, at: at(3), check: 'test', spend: 0.1 },
          { taskId: 2, at: at(3, 11), check: 'test', spend: 0.2 },
          { taskId: 3, at: at(4), check: 'lint', spend: 3 },
        ],
        otherSpend: [{ taskId: 3, amount: 0.5 }],
      }),
    );
    assert.equal(r.total.attempts, 4);
    assert.equal(r.total.spend, 4.8);
    assert.equal(r.total.attemptsPerGreen, 2);
    assert.equal(r.total.spendPerGreen, 2.4);
  });

  test('V1: a head moved within a week of green with no attempt after is a change by a person; later or by the loop is not', () => {
    const green = at(2, 12);
    const r = computeResults(
      period,
      rows({
        tasks: [
          task(1, { greenAt: green, greenSha: 'g', headSha: 'p', headSeenAt: at(5) }), // a person's commit, 3 days on
          task(2, { greenAt: green, greenSha: 'g', headSha: 'p', headSeenAt: at(10) }), // 8 days on: past the week
          task(3, { greenAt: green, greenSha: 'g', headSha: 'g', headSeenAt: at(2, 11) }), // still the green head
          task(4, { greenAt: green, greenSha: 'g', headSha: 'n', headSeenAt: at(3) }), // the loop attempted again
        ],
        reds: [1, 2, 3, 4].map((id) => ({ taskId: id, at: at(2), check: 'test' })),
        attempts: [{ taskId: 4, at: at(3), check: 'test', spend: 0 }],
      }),
    );
    assert.equal(r.total.changedByPerson, 1);
    assert.deepEqual(
      r.byCheck.map((c) => c.changedByPerson),
      [1],
    );
  });

  test('V1: by repository and agent, each pull request in its one group; the groups add up to the total', () => {
    const r = computeResults(
      period,
      rows({
        tasks: [
          task(1, { repository: 'acme/shop', greenAt: at(2, 12) }),
          task(2, { repository: 'acme/api', agent: 'http' }),
          task(3, { repository: 'acme/api', agent: 'http', greenAt: at(4, 12) }),
        ],
        attempts: [
          { taskId: 1, at: at(2), check: 'test', spend: 1 },
          { taskId: 2, at: at(3), check: 'test', spend: 2 },
          { taskId: 3, at: at(4), check: 'lint', spend: 4 },
        ],
      }),
    );
    assert.deepEqual(
      r.byRepository.map((g) => [g.repository, g.pullRequests, g.greenWithoutPerson, g.spend]),
      [
        ['acme/api', 2, 1, 6],
        ['acme/shop', 1, 1, 1],
      ],
    );
    assert.deepEqual(
      r.byAgent.map((g) => [g.agent, g.pullRequests, g.attempts]),
      [
        ['http', 2, 2],
        ['command: claude-code-resume', 1, 1],
      ],
    );
    assert.equal(sum(r.byRepository.map((g) => g.pullRequests)), r.total.pullRequests);
  });

  test('V1: by check, a pull request counts under each check it failed, but attempts and spend only under their own', () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1, { greenAt: at(2, 12) })],
        reds: [
          { taskId: 1, at: at(2), check: 'test' },
          { taskId: 1, at: at(2), check: 'lint' },
        ],
        attempts: [
          { taskId: 1, at: at(2), check: 'test', spend: 2 },
          { taskId: 1, at: at(2, 11), check: null, spend: 1 },
        ],
      }),
    );
    const by = Object.fromEntries(r.byCheck.map((c) => [c.check, c]));
    assert.equal(by.test!.pullRequests, 1);
    assert.equal(by.lint!.pullRequests, 1);
    assert.equal(by.test!.attempts, 1);
    assert.equal(by.test!.spend, 2);
    assert.equal(by.lint!.attempts, 0);
    assert.equal(by[UNKNOWN_CHECK]!.attempts, 1);
    assert.deepEqual(r.costliestChecks, [
      { check: 'test', attempts: 1, spend: 2, pullRequests: 1 },
      { check: UNKNOWN_CHECK, attempts: 1, spend: 1, pullRequests: 1 },
    ]);
  });

  test('V1: the costliest checks are ordered by spend, then attempts', () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1), task(2), task(3)],
        attempts: [
          { taskId: 1, at: at(2), check: 'a', spend: 0 },
          { taskId: 1, at: at(2, 11), check: 'a', spend: 0 },
          { taskId: 2, at: at(2), check: 'b', spend: 0 },
          { taskId: 3, at: at(2), check: 'c', spend: 0.3 },
        ],
      }),
    );
    assert.deepEqual(
      r.costliestChecks.map((c) => c.check),
      ['c', 'a', 'b'],
    );
  });

  test('V1: an empty period has zeros and no ratios', () => {
    const r = computeResults(period, empty);
    assert.equal(r.total.pullRequests, 0);
    assert.equal(r.total.fixRate, null);
    assert.equal(r.total.spendPerGreen, null);
    assert.deepEqual(r.total.timeToGreenMinutes, { median: null, p90: null, samples: [] });
    assert.deepEqual([r.byRepository, r.byAgent, r.byCheck, r.costliestChecks], [[], [], [], []]);
  });

  test('V1: amounts do not carry float noise (0.1 + 0.2 is 0.3)', () => {
    const r = computeResults(
      period,
      rows({
        tasks: [task(1)],
        attempts: [
          { taskId: 1, at: at(2), check: 'test', spend: 0.1 },
          { taskId: 1, at: at(3), check: 'test', spend: 0.2 },
        ],
      }),
    );
    assert.equal(r.total.spend, 0.3);
  });

  test('V1: percentile by nearest rank', () => {
    assert.equal(percentile([], 0.5), null);
    assert.equal(percentile([7], 0.9), 7);
    assert.equal(percentile([10, 20, 30, 40], 0.5), 20);
    assert.equal(percentile([10, 20, 30, 40], 0.9), 40);
  });
});

describe('the period of Results (V1)', () => {
  const now = new Date('2026-12-04T18:00:00.000Z');
  test('V1: the default is the last 30 days up to now; 7d and 90d likewise', () => {
    assert.deepEqual(resolvePeriod({}, now), {
      kind: 'ok',
      period: { from: '2026-11-04T18:00:00.000Z', to: '2026-12-04T18:00:00.000Z' },
    });
    const week = resolvePeriod({ period: '7d' }, now);
    assert.equal(week.kind === 'ok' && week.period.from, '2026-11-27T18:00:00.000Z');
    const quarter = resolvePeriod({ period: '90d' }, now);
    assert.equal(quarter.kind === 'ok' && quarter.period.from, '2026-09-05T18:00:00.000Z');
  });

  test('V1: bare dates are whole UTC days, `to` included', () => {
    assert.deepEqual(resolvePeriod({ from: '2026-11-01', to: '2026-11-30' }, now), {
      kind: 'ok',
      period: { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' },
    });
  });

  test('V1: a date-time with an offset is taken as given', () => {
    const p = resolvePeriod({ from: '2026-11-01T02:00:00+02:00', to: '2026-11-02T00:00:00Z' }, now);
    assert.equal(p.kind === 'ok' && p.period.from, '2026-11-01T00:00:00.000Z');
  });

  test('V1: a period that cannot be read is refused with words that say why', () => {
    for (const input of [
      { from: 'yesterday' },
      { to: '2026-02-30' },
      { from: '2026-11-02', to: '2026-11-01' },
      { from: '2024-01-01', to: '2026-01-01' },
      { period: '7d' as const, from: '2026-11-01' },
    ]) {
      const v = resolvePeriod(input, now);
      assert.equal(v.kind, 'invalid', JSON.stringify(input));
      assert.ok(v.kind === 'invalid' && v.message.length > 10);
    }
  });
});

function sum(ns: number[]): number {
  return ns.reduce((a, b) => a + b, 0);
}
