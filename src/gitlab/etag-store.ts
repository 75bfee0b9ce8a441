// Where the GitLab adapter keeps the answers to its conditional GETs (decision 0035): the next
// identical read sends If-None-Match, and GitLab's 304 lets the kept body stand. The server passes
// the ledger's store (shared with the GitHub adapter's, every key here starting `gitlab:`); a client
// on its own keeps them in memory, bounded by count and by characters (A1). SPEC E1, E4, N3.
import type { EtagStore } from '../app/poll-state-port.js';

/** What the GitLab adapter reads and writes of an ETag store. */
export type GitLabEtagStore = Pick<EtagStore, 'getEtag' | 'putEtag'>;

/**
 * An ETag store in this process's memory: at most `maxEntries` answers and `maxChars` characters of
 * them in all, the least recently used dropped first.
 */
export function memoryGitLabEtagStore(maxEntries = 500, maxChars = 32 * 1024 * 1024): GitLabEtagStore {
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
  if (!Number.isInteger(maxChars) || maxChars < 1)
    throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  const entries = new Map<string, { etag: string; value: string; storedAt: string }>();
  let chars = 0;
  const sizeOf = (key: string, e: { etag: string; value: string }) => key.length + e.etag.length + e.value.length;
  function drop(key: string): void {
    const e = entries.get(key);
    if (e === undefined) return;
    entries.delete(key);
    chars -= sizeOf(key, e);
  }
  return {
    async getEtag(key) {
      const e = entries.get(key);
      if (e === undefined) return null;
      entries.delete(key); // most recently used last
      entries.set(key, e);
      return { ...e };
    },
    async putEtag(key, etag, value) {
      drop(key);
      const e = { etag, value, storedAt: new Date().toISOString() };
      if (sizeOf(key, e) > maxChars) return; // larger than the whole store: not kept
      entries.set(key, e);
      chars += sizeOf(key, e);
      while (entries.size > maxEntries || chars > maxChars) drop(entries.keys().next().value as string);
    },
  };
}
