// Temp directories a test makes on the fly (from a helper, several per file): each is removed when the
// test process exits, passed or failed, so a run leaves nothing in TMPDIR (issue 34, decision 0062).
// A test that owns one directory for its whole life removes it itself, in `finally` or `after`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the OS temp directory named `<prefix>XXXXXX`, removed at process exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
