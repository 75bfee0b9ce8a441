// fixloop's own version, from package.json: what `fixloop --version` prints and the MCP server
// announces. src/ under tsx and dist/ when built both sit one level below package.json.
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
