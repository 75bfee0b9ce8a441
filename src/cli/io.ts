// What a CLI command writes to and reads from, injectable so tests run commands in-process
// (SPEC M1), and the one error type a command fails with: it carries the exit code (1 = the server
// or the network failed, 2 = a malformed argument), mapped to the process once, in main.ts.

export interface Output {
  write(text: string): unknown;
}

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  fetch: typeof fetch;
  /** The clock relative times are read against ("3 h ago"); a test gives a fixed one. */
  now: () => Date;
}

export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: 1 | 2;
  /** The command that failed, shown as `fixloop <command>: …`; absent, `fixloop: …`. */
  readonly command: string | undefined;

  constructor(exitCode: 1 | 2, message: string, opts: { cause?: unknown; command?: string } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.exitCode = exitCode;
    this.command = opts.command;
  }
}

/** A response body for people: JSON re-indented, anything else as it came. */
export function prettyBody(text: string): string {
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch {
    return text === '' || text.endsWith('\n') ? text : `${text}\n`;
  }
}
