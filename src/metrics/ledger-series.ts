// The series read from the ledger at scrape time (SPEC N2): attempts, runs, the Inbox, stops and
// spend are database state, so a scrape of any replica answers the same numbers. Each scrape
// replaces the last one's values; a failed read leaves the series out rather than stale, and
// fixloop_ledger_up says so.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { LedgerGauges } from '../app/metrics-port.js';
import { STOP_REASONS } from '../core/reasons.js';

// The label values a series always shows (at 0 until something is there): the states the scrape reads.
const IN_FLIGHT_STATES = ['queued', 'running', 'awaiting_progress'];
const UNSETTLED_STATUSES = ['claimed', 'dispatching'];
const UNFINISHED_RUN_STATES = ['queued', 'running'];

export interface LedgerSeries {
  /** This scrape's read of the ledger; null when it failed. */
  set(g: LedgerGauges | null): void;
}

export function createLedgerSeries(registers: Registry[]): LedgerSeries {
  const up = new Gauge({
    name: 'fixloop_ledger_up',
    help: '1 when this scrape read the ledger-derived series from the database, 0 when the read failed.',
    registers,
  });
  const attempts = new Gauge({
    name: 'fixloop_attempts_in_flight',
    help: 'Attempts in flight now (I1), by state: at most one per pull request (K7). Read from the database.',
    labelNames: ['state'],
    registers,
  });
  const unsettled = new Gauge({
    name: 'fixloop_attempts_unsettled',
    help: 'Attempts whose dispatch is not settled yet (claimed, dispatching), by status. Read from the database.',
    labelNames: ['status'],
    registers,
  });
  const runs = new Gauge({
    name: 'fixloop_runs',
    help: 'Runs not finished (queued, running), by state. Read from the database.',
    labelNames: ['state'],
    registers,
  });
  const notices = new Gauge({
    name: 'fixloop_notices_open',
    help: 'Open Tasks whose loop is stopped with its one notice filed (G1): the Inbox a person works through. Read from the database.',
    registers,
  });
  const stops = new Counter({
    name: 'fixloop_stops_total',
    help: 'Notices filed since the database was created, by stop reason (G1, I5, K3–K9). Read from the database.',
    labelNames: ['reason'],
    registers,
  });
  const spend = new Counter({
    name: 'fixloop_spend_total',
    help: 'What runs reported spending (K6), by kind (model, sandbox), in the configured currency. Read from the database.',
    labelNames: ['kind'],
    registers,
  });

  /** Replace a labelled series' values: the known values at 0, then what the read found. */
  const fill = (m: Gauge | Counter, label: string, known: readonly string[], rows: [string, number][]) => {
    m.reset();
    for (const v of known) m.inc({ [label]: v }, 0);
    for (const [v, n] of rows) m.inc({ [label]: v }, n);
  };

  return {
    set(g) {
      if (g === null) {
        for (const m of [attempts, unsettled, runs, notices, stops, spend]) m.reset();
        up.set(0);
        return;
      }
      up.set(1);
      fill(
        attempts,
        'state',
        IN_FLIGHT_STATES,
        g.attemptsInFlight.map((r) => [r.state, r.n]),
      );
      fill(
        unsettled,
        'status',
        UNSETTLED_STATUSES,
        g.attemptsUnsettled.map((r) => [r.status, r.n]),
      );
      fill(
        runs,
        'state',
        UNFINISHED_RUN_STATES,
        g.runsUnfinished.map((r) => [r.state, r.n]),
      );
      notices.set(g.openNotices);
      fill(
        stops,
        'reason',
        [...new Set(STOP_REASONS)],
        g.stops.map((r) => [r.reason, r.n]),
      );
      spend.reset();
      spend.inc({ kind: 'model' }, g.spend.model);
      spend.inc({ kind: 'sandbox' }, g.spend.sandbox);
    },
  };
}
