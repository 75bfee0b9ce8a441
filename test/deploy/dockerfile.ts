// Reading the Dockerfile and compose.yaml as Docker and Compose do, for the deploy tests (decision 0026,
// 0048): the Dockerfile's instructions by stage, a stage's ENV, and Compose's `${VAR…}` interpolation —
// so the tests check and start what those files say, not a copy of it.
import assert from 'node:assert/strict';

export interface Instruction {
  op: string;
  args: string;
}

export interface Stage {
  from: string;
  steps: Instruction[];
}

/** The Dockerfile's instructions by stage name, continuation lines joined and comments dropped. */
export function dockerfileStages(text: string): Map<string, Stage> {
  const out = new Map<string, Stage>();
  let current: Instruction[] | null = null;
  for (const line of text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+) AS (\S+)$/i.exec(args);
      assert.ok(m, `every stage is named: FROM ${args}`);
      current = [];
      out.set(m[2]!, { from: m[1]!, steps: current });
    } else {
      assert.ok(current, `${op} before the first FROM`);
      current.push({ op: op.toUpperCase(), args });
    }
  }
  return out;
}

/** The arguments of every `op` instruction of a stage. */
export const all = (steps: Instruction[], op: string): string[] => steps.filter((s) => s.op === op).map((s) => s.args);

/** A stage's environment from its `ENV KEY=value …` instructions (unquoted values, as fixloop's are). */
export function envOf(steps: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const args of all(steps, 'ENV')) {
    for (const pair of args.split(/\s+/)) {
      const eq = pair.indexOf('=');
      assert.ok(eq > 0, `ENV ${pair} is KEY=value`);
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}

/**
 * Compose's interpolation of one value: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`
 * and `${VAR?message}` (an error when unset, as `docker compose up` refuses), and `$$` for a dollar.
 */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (whole, name, colon, kind, arg) => {
      if (whole === '$$') return '$';
      const v = vars[name as string];
      const missing = v === undefined || (colon === ':' && v === '');
      if (kind === '?' && missing) throw new Error(`required variable ${name} is missing a value: ${arg}`);
      if (kind === '-' && missing) return arg as string;
      return v ?? '';
    },
  );
}
