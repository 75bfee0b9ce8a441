// What a recent delivery was classified as, so that a byte-identical redelivery (GitHub's own
// redelivery, a proxy's retry, the same delivery sent twice in a storm) is not parsed and checked
// again: JSON.parse and the shape check are most of what fixloop spends on a delivery before its
// commit. Only a shortcut: whether a redelivery stores anything is still the ledger's unique
// identity (decision 0003), so a lost or evicted entry changes nothing but the cost.
//
// The key is the event header, the delivery id and the verified X-Hub-Signature-256. An HMAC under
// fixloop's own secret is a digest of the exact text, so two deliveries with the same key carry the
// same body, and classification is a pure function of (event, body, delivery id). Bounded by what
// its entries are charged and by a count; forgets the oldest first. ingest.ts keeps only readings
// that store nothing, each charged a small constant.

export interface RedeliveryMemo<T> {
  recall(key: string): T | undefined;
  /** Remember `value` for `key`, charged `bytes` against the budget. Returns `value`. */
  keep(key: string, value: T, bytes: number): T;
  readonly size: number;
}

export function createRedeliveryMemo<T>(opts: { maxBytes: number; maxEntries?: number }): RedeliveryMemo<T> {
  const maxEntries = opts.maxEntries ?? 1024;
  // A Map iterates in insertion order: its first key is the oldest.
  const entries = new Map<string, { value: T; bytes: number }>();
  let bytes = 0;
  return {
    recall(key) {
      return entries.get(key)?.value;
    },
    keep(key, value, size) {
      if (size > opts.maxBytes || entries.has(key)) return value;
      entries.set(key, { value, bytes: size });
      bytes += size;
      while (bytes > opts.maxBytes || entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        bytes -= entries.get(oldest)!.bytes;
        entries.delete(oldest);
      }
      return value;
    },
    get size() {
      return entries.size;
    },
  };
}

/** The memo key of a delivery whose signature was verified; null without one (nothing to key on). */
export function redeliveryKey(eventName: string, deliveryId: string, signature: string | undefined): string | null {
  return signature ? `${eventName}\n${deliveryId}\n${signature}` : null;
}
