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
