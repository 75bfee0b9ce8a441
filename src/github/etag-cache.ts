// A bounded least-recently-used cache of GitHub answers keyed by request, for conditional requests:
// the next identical read sends If-None-Match, and a 304 (which GitHub does not count against the
// rate limit) reuses the stored answer. SPEC E1, E4.

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
