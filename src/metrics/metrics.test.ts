// SPEC N2: the metrics registry on its own — the sources read at scrape time (the ledger, the notice
// outbox's depth) and what a failed read does; the exposition is parsed strictly.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createMetrics } from './metrics.js';
import { parsePrometheus, valueOf } from '../../test/support/prometheus.js';
import type { LedgerGauges } from '../app/metrics-port.js';

const GAUGES: LedgerGauges = {
  attemptsInFlight: [{ state: 'running', n: 2 }],
  attemptsUnsettled: [],
  runsUnfinished: [{ state: 'running', n: 2 }],
  openNotices: 3,
  stops: [{ reason: 'budget_spent', n: 3 }],
  spend: { model: 4.5, sandbox: 0 },
};

async function scraped(m: ReturnType<typeof createMetrics>) {
  return parsePrometheus((await m.scrape()).body);
}

describe('metrics registry (N2)', () => {
  test('N2: the outbox depth reads 0 until the outbox reports, then a number or a reader read at each scrape', async () => {
    const m = createMetrics({ processMetrics: false });
    assert.equal(valueOf(await scraped(m), 'fixloop_outbox_depth'), 0);
    m.setOutboxDepth(4);
    assert.equal(valueOf(await scraped(m), 'fixloop_outbox_depth'), 4);
    let depth = 7;
    m.setOutboxDepth(async () => depth);
    assert.equal(valueOf(await scraped(m), 'fixloop_outbox_depth'), 7);
    depth = 1;
    assert.equal(valueOf(await scraped(m), 'fixloop_outbox_depth'), 1, 'read again at the next scrape');
  });

  test('N2: a failed ledger read still answers, with fixloop_ledger_up 0 and no stale ledger values', async () => {
    const errors: string[] = [];
    const m = createMetrics({ processMetrics: false, onError: (_e, where) => errors.push(where) });
    let fail = false;
    m.ledgerFrom(async () => {
      if (fail) throw new Error('database gone');
      return GAUGES;
    });
    let s = await scraped(m);
    assert.equal(valueOf(s, 'fixloop_ledger_up'), 1);
    assert.equal(valueOf(s, 'fixloop_runs', { state: 'running' }), 2);
    assert.equal(valueOf(s, 'fixloop_stops_total', { reason: 'budget_spent' }), 3);
    fail = true;
    s = await scraped(m);
    assert.equal(valueOf(s, 'fixloop_ledger_up'), 0);
    assert.equal(valueOf(s, 'fixloop_runs', { state: 'running' }), undefined);
    assert.equal(valueOf(s, 'fixloop_stops_total', { reason: 'budget_spent' }), undefined);
    assert.deepEqual(errors, ['ledger']);
    m.decisions.committed([{ outcome: 'stored' }]);
    assert.equal(
      valueOf(await scraped(m), 'fixloop_deliveries_total', { outcome: 'stored' }),
      1,
      'the rest still counts',
    );
  });

  test('N2: refusals are counted by reason from the committed decision rows; other outcomes only by outcome', async () => {
    const m = createMetrics({ processMetrics: false });
    m.decisions.committed([
      { outcome: 'refused', reason: 'stop_flag' },
      { outcome: 'refused', reason: 'stop_flag' },
      { outcome: 'noticed', reason: 'budget_spent' },
    ]);
    const s = await scraped(m);
    assert.equal(valueOf(s, 'fixloop_refusals_total', { reason: 'stop_flag' }), 2);
    assert.equal(valueOf(s, 'fixloop_deliveries_total', { outcome: 'refused' }), 2);
    assert.equal(valueOf(s, 'fixloop_deliveries_total', { outcome: 'noticed' }), 1);
    assert.equal(valueOf(s, 'fixloop_refusals_total', { reason: 'budget_spent' }), 0);
  });
});
