// The one error loadConfig throws (SPEC M5): it names where the bad value came from (a file path or
// the environment) and carries zod's own readable listing of every problem, so a start-up failure
// says exactly which variable or key to fix. The CLI maps it to exit code 2.
import { z } from 'zod';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** Where the problem is: `environment`, or the config file's path. */
  readonly source: string;

  constructor(source: string, problem: z.ZodError | string, opts: { cause?: unknown } = {}) {
    const detail = typeof problem === 'string' ? problem : z.prettifyError(problem);
    super(
      `Invalid configuration in ${source}:\n${detail}`,
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.source = source;
  }

  /** One problem at one path (a variable name or a file key), worded like zod's own issues. */
  static at(source: string, path: (string | number)[], message: string): ConfigError {
    return new ConfigError(source, new z.ZodError([{ code: 'custom', path, message, input: undefined }]));
  }
}

/**
 * Why a file a setting names cannot be read, and what to do, in a person's words (issue 32): the path,
 * the cause (missing, a directory, no permission) and, for a permission, which user must be able to read it.
 */
export function unreadableFile(path: string, err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const uid = process.getuid?.();
  const who = uid === undefined ? 'the user fixloop runs as' : `the user fixloop runs as (uid ${uid})`;
  if (code === 'ENOENT') return `cannot be read: ${path} does not exist; check the path`;
  if (code === 'EISDIR') return `cannot be read: ${path} is a directory; name the file inside it`;
  if (code === 'EACCES' || code === 'EPERM')
    return `cannot be read: permission denied on ${path}; make it readable by ${who}, e.g. chown it to that user and chmod 600`;
  return `cannot be read: ${(err as Error).message}`;
}
