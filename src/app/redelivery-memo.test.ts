// A byte-identical redelivery of a delivery that stores nothing is answered from what its first copy
// read as, without parsing it again; a stored event's redelivery is parsed again; the memo stays
// within its budget, forgets the oldest first, and never decides what is stored (the ledger's identity does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sign } from '@octokit/webhooks-methods';
import { createRedeliveryMemo, redeliveryKey } from './redelivery-memo.js';
import { createIngestor, type Delivery } from './ingest.js';
import type { DecisionInput, IncomingDelivery, Ledger, Logger, StoreResult } from './ports.js';
import { checkRunPayload } from '../../test/support/deliveries.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const REPO = { owner: 'acme', name: 'shop', id: 1 };

test('a kept reading is recalled by its key; another key recalls nothing', () => {
  const memo = createRedeliveryMemo<string>({ maxBytes: 100 });
  assert.equal(memo.keep('a', 'reading of a', 10), 'reading of a');
  assert.equal(memo.recall('a'), 'reading of a');
  assert.equal(memo.recall('b'), undefined);
});

test('past its byte budget the memo forgets the oldest entries first', () => {
  const memo = createRedeliveryMemo<number>({ maxBytes: 100 });
  memo.keep('a', 1, 40);
  memo.keep('b', 2, 40);
  memo.keep('c', 3, 40);
  assert.equal(memo.recall('a'), undefined);
  assert.equal(memo.recall('b'), 2);
  assert.equal(memo.recall('c'), 3);
  assert.equal(memo.size, 2);
});

test('past its entry cap the memo forgets the oldest entries first', () => {
  const memo = createRedeliveryMemo<number>({ maxBytes: 1_000_000, maxEntries: 3 });
  for (let i = 0; i < 5; i++) memo.keep(`k${i}`, i, 1);
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((i) => memo.recall(`k${i}`)),
    [undefined, undefined, 2, 3, 4],
  );
});

test('a body larger than the whole budget is not kept, and keeping a key twice counts it once', () => {
  const memo = createRedeliveryMemo<number>({ maxBytes: 100 });
  memo.keep('huge', 1, 101);
  assert.equal(memo.recall('huge'), undefined);
  memo.keep('a', 1, 60);
  memo.keep('a', 1, 60);
  memo.keep('b', 2, 40);
  assert.equal(memo.recall('a'), 1, 'a second keep of the same key did not count its bytes again');
  assert.equal(memo.size, 2);
});

test('without a verified signature there is no key', () => {
  assert.equal(redeliveryKey('check_run', 'd-1', undefined), null);
  assert.notEqual(redeliveryKey('check_run', 'd-1', 'sha256=aa'), redeliveryKey('check_suite', 'd-1', 'sha256=aa'));
  assert.notEqual(redeliveryKey('check_run', 'd-1', 'sha256=aa'), redeliveryKey('check_run', 'd-2', 'sha256=aa'));
});

/** An ingestor over a ledger that dedupes by identity in memory, counting JSON.parse calls. */
function setup(memoBytes?: number) {
  const seen = new Set<string>();
  const stored: IncomingDelivery[] = [];
  const decisions: DecisionInput[] = [];
  let fail = false;
  const ledger = {
    async storeDeliveries(batch: IncomingDelivery[], alsoRecord: DecisionInput[]): Promise<StoreResult[]> {
      if (fail) {
        fail = false;
        throw new Error('disk I/O error');
      }
      decisions.push(...alsoRecord);
      return batch.map((d) => {
        if (seen.has(d.identity)) return { kind: 'duplicate' };
        seen.add(d.identity);
        stored.push(d);
        return { kind: 'stored', eventId: stored.length };
      });
    },
  } as unknown as Ledger;
  const ingestor = createIngestor({
    ledger,
    logger: silent,
    onStored() {},
    ...(memoBytes === undefined ? {} : { memoBytes }),
  });
  let parses = 0;
  const ingest = async (d: Delivery) => {
    const parse = JSON.parse;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      parses++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      return await ingestor.ingest(d);
    } finally {
      JSON.parse = parse;
    }
  };
  return { ingest, stored, decisions, parses: () => parses, failNext: () => void (fail = true) };
}

async function signed(eventName: string, deliveryId: string, payload: unknown): Promise<Delivery> {
  const raw = JSON.stringify(payload);
  return { eventName, deliveryId, raw, verifiedSignature: await sign('secret', raw) };
}

test('a redelivery (same event, delivery id and signature) of a delivery that stores nothing is not parsed again, and has its own decision row', async () => {
  const { ingest, decisions, parses } = setup();
  const d = await signed(
    'check_run',
    'd-1',
    checkRunPayload({ repo: REPO, sha: 'a'.repeat(40), id: 7, pr: null, status: 'queued' }),
  );
  const first = await ingest(d);
  const again = await ingest({ ...d });
  assert.equal(first.outcome, 'dropped');
  assert.deepEqual(again, first);
  assert.equal(parses(), 1);
  assert.deepEqual(
    decisions.map((r) => [r.deliveryId, r.outcome, r.reason]),
    [
      ['d-1', 'dropped', 'not_completed'],
      ['d-1', 'dropped', 'not_completed'],
    ],
  );
});

test("a stored event's reading is not kept: its redelivery is parsed again, and the ledger calls it a duplicate", async () => {
  const { ingest, stored, parses } = setup();
  const d = await signed(
    'check_run',
    'd-6',
    checkRunPayload({ repo: REPO, sha: 'e'.repeat(40), id: 11, pr: null, output: 'FAIL src/cart.test.ts' }),
  );
  assert.equal((await ingest(d)).outcome, 'stored');
  assert.equal((await ingest({ ...d })).outcome, 'duplicate');
  assert.equal(parses(), 2);
  assert.equal(stored.length, 1);
});

test('the same body under another delivery id, or without a signature, is parsed again', async () => {
  const { ingest, parses } = setup();
  const payload = checkRunPayload({ repo: REPO, sha: 'b'.repeat(40), id: 8, pr: null, status: 'in_progress' });
  const d = await signed('check_run', 'd-1', payload);
  await ingest(d);
  await ingest({ ...d, deliveryId: 'd-2' });
  const { verifiedSignature: _unsigned, ...unsigned } = d;
  await ingest(unsigned);
  await ingest(unsigned);
  assert.equal(parses(), 4);
});

test('a redelivered malformed body gets the same 400 and its own decision row', async () => {
  const { ingest, decisions, parses } = setup();
  const raw = '{"action": "completed",';
  const d: Delivery = {
    eventName: 'check_run',
    deliveryId: 'd-bad',
    raw,
    verifiedSignature: await sign('secret', raw),
  };
  const first = await ingest(d);
  const again = await ingest({ ...d });
  assert.equal(first.status, 400);
  assert.deepEqual(again, first);
  assert.equal(parses(), 1);
  assert.deepEqual(
    decisions.map((r) => [r.deliveryId, r.outcome, r.reason]),
    [
      ['d-bad', 'rejected', 'malformed_json'],
      ['d-bad', 'rejected', 'malformed_json'],
    ],
  );
});

test('a first copy whose commit failed is stored by its redelivery', async () => {
  const { ingest, stored, parses, failNext } = setup();
  const d = await signed('check_run', 'd-3', checkRunPayload({ repo: REPO, sha: 'c'.repeat(40), id: 9, pr: null }));
  failNext();
  await assert.rejects(ingest(d), /disk I\/O error/);
  const answer = await ingest({ ...d });
  assert.equal(answer.outcome, 'stored');
  assert.equal(stored.length, 1);
});

test('memoBytes 0 turns the memo off', async () => {
  const { ingest, parses } = setup(0);
  const d = await signed(
    'check_run',
    'd-4',
    checkRunPayload({ repo: REPO, sha: 'd'.repeat(40), id: 10, pr: null, status: 'in_progress' }),
  );
  await ingest(d);
  await ingest({ ...d });
  assert.equal(parses(), 2);
});

test('a reading without free text is charged a small constant, not its body: a large unhandled event is remembered within a small budget', async () => {
  const { ingest, parses } = setup(1000);
  const d = await signed('push', 'd-5', {
    ref: 'refs/heads/main',
    commits: Array.from({ length: 50 }, (_, i) => ({ id: `${i}`.repeat(40), message: 'x'.repeat(100) })),
  });
  assert.ok(d.raw.length > 1000);
  assert.equal((await ingest(d)).outcome, 'ignored');
  assert.equal((await ingest({ ...d })).outcome, 'ignored');
  assert.equal(parses(), 1);
});
