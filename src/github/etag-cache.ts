// Where the answers to conditional requests are kept: the next identical read sends If-None-Match,
// and a 304 (which GitHub does not count against the rate limit) reuses the stored answer. The
// server keeps them in the ledger for every open Task (shared by replicas and restarts, decision
// 0031); this bounded least-recently-used cache in memory is the default for a client on its own
// (`fixloop pr checks`, tests). SPEC E1, E4, N3.
import type { EtagStore } from '../app/poll-state-port.js';

export interface CachedAnswer<V> {
  etag: string;
  value: V;
}

export class EtagCache<V> {
  private readonly entries = new Map<string, CachedAnswer<V>>();

  constructor(readonly maxEntries = 500) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): CachedAnswer<V> | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedAnswer<V>): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

/** What the GitHub adapter reads and writes of an ETag store. */
export type ConditionalStore = Pick<EtagStore, 'getEtag' | 'putEtag'>;

/** An ETag store in this process's memory, bounded to `maxEntries` answers. */
export function memoryEtagStore(maxEntries = 500): ConditionalStore {
  const cache = new EtagCache<{ value: string; storedAt: string }>(maxEntries);
  return {
    async getEtag(key) {
      const hit = cache.get(key);
      return hit === undefined ? null : { etag: hit.etag, ...hit.value };
    },
    async putEtag(key, etag, value) {
      cache.set(key, { etag, value: { value, storedAt: new Date().toISOString() } });
    },
  };
}
