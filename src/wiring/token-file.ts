// The API token `fixloop serve` makes when none is configured: secure by default even on loopback,
// made once and kept in a file only fixloop's user can read (L3).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Read the token kept in `file`, or create it (0600) with a fresh random token. */
export function ensureTokenFile(file: string): string {
  if (existsSync(file)) {
    // An earlier version may have left it readable to others (L3): it is the whole API.
    if (statSync(file).uid === process.getuid?.()) chmodSync(file, 0o600);
    const t = readFileSync(file, 'utf8').trim();
    if (t) return t;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}
