// The per-Task budget (C1) and a person's grants (V4, K5) as loaded: the environment wins; a value it
// holds that does not parse falls back to the file's, else the default, with a warning — never a stop.
import { MAX_ATTEMPTS_LIMIT, parseMaxAttempts } from '../core/budget.js';
import { MAX_GRANTS_LIMIT, parseMaxGrants } from '../core/grant-cap.js';
import { blankToUndefined } from './read-environment.js';

/** The environment wins (0006 (g)); an unparseable value falls back to the file's, else 2, with a warning (C1). */
export function resolveMaxAttempts(
  raw: string | undefined,
  fromFile: number | undefined,
  file: string | null,
  warnings: string[],
): number {
  const parsed = parseMaxAttempts(raw);
  if (parsed.warning === null)
    return blankToUndefined(raw) === undefined && fromFile !== undefined ? fromFile : parsed.max;
  if (fromFile !== undefined) {
    const shown = JSON.stringify(raw?.trim());
    warnings.push(
      `TASK_CI_AUTO_RESUME_MAX_ATTEMPTS=${shown} is not an integer 0–${MAX_ATTEMPTS_LIMIT}; using maxAttempts=${fromFile} from ${file}`,
    );
    return fromFile;
  }
  warnings.push(parsed.warning);
  return parsed.max;
}

/** V4: as resolveMaxAttempts — the environment wins; an unparseable value falls back to the file's, else 3, with a warning. */
export function resolveMaxGrants(
  raw: string | undefined,
  fromFile: number | undefined,
  file: string | null,
  warnings: string[],
): number {
  const parsed = parseMaxGrants(raw);
  if (parsed.warning === null)
    return blankToUndefined(raw) === undefined && fromFile !== undefined ? fromFile : parsed.max;
  if (fromFile !== undefined) {
    warnings.push(
      `TASK_MAX_GRANTS=${JSON.stringify(raw?.trim())} is not an integer 0–${MAX_GRANTS_LIMIT}; using maxGrants=${fromFile} from ${file}`,
    );
    return fromFile;
  }
  warnings.push(parsed.warning);
  return parsed.max;
}
