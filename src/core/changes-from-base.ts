// Issue 36: an agent asked to resolve a conflict (or one that simply merges or rebases its base) brings
// the base branch's own changes into its push. Those are not the agent's: a test file the base deleted
// is not the agent deleting a test, and a base that moved a thousand lines is not a runaway diff. A file
// of the push is the base's when the base changed it to exactly the same result: the same path and
// kind of change, and the same content after (the blob the host names, or else the same patch).
// The push guard asks this only of a push it would otherwise stop, so a plain push costs nothing more.

/** What this rule reads of one changed file, as a host's comparison lists it. */
export interface ChangedFileFacts {
  path: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  patch: string | null;
  previousPath?: string;
  blobSha: string | null;
}

/** The push's files without those the base changed to the same result (the base's, merged in). */
export function withoutBaseChanges<F extends ChangedFileFacts>(
  push: readonly F[],
  base: readonly ChangedFileFacts[],
): F[] {
  const byPath = new Map(base.map((f) => [f.path, f]));
  return push.filter((f) => {
    const b = byPath.get(f.path);
    return b === undefined || !sameResult(f, b);
  });
}

function sameResult(a: ChangedFileFacts, b: ChangedFileFacts): boolean {
  if (a.status !== b.status || (a.previousPath ?? null) !== (b.previousPath ?? null)) return false;
  // A file removed on both sides has no content after: the same removal.
  if (a.status === 'removed') return true;
  if (a.blobSha !== null && b.blobSha !== null) return a.blobSha === b.blobSha;
  // No blob named (GitLab): the same patch from the same old content is the same change.
  return a.patch !== null && a.patch === b.patch;
}
