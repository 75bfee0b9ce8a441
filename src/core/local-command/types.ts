// The shapes of the local-command report (SPEC J3): which runner failed, what failed, and the one
// command that reruns exactly that. Every runner module (vitest.ts, jest.ts, …) has the same face,
// `Runner`, so index.ts can try them all on one log and keep the one that failed first.

/** The runners J3 recognizes, in the order they are tried when two start on the same line. */
export const TOOLS = ['vitest', 'jest', 'node-test', 'pytest', 'go-test', 'cargo-test', 'eslint', 'tsc'] as const;
export type Tool = (typeof TOOLS)[number];

/**
 * One failing file or test, named as the tool printed it (a CI workspace prefix such as
 * `/home/runner/work/repo/repo/` removed). `test` is absent when the whole file failed (it did not
 * load, a linter or compiler error) — see each runner's module for what `file` and `test` hold.
 */
export interface Failure {
  readonly file: string;
  readonly test?: string;
}

export interface LocalCommandReport {
  readonly tool: Tool;
  readonly failures: readonly Failure[];
  /** argv: run it without a shell. Log text is untrusted; it only ever lands in single arguments. */
  readonly command: readonly string[];
  /** The command for a person to paste: every argument that is not plainly inert is single-quoted. */
  readonly display: string;
  /** Present when the command cannot select exactly the failures (say why, and what it runs instead). */
  readonly note?: string;
}

/** What a runner module exports. `detect` is the line index of its first failure, or -1. */
export interface Runner {
  readonly tool: Tool;
  detect(log: string): number;
  parse(log: string): Failure[];
  command(failures: readonly Failure[]): RerunCommand;
}

export interface RerunCommand {
  readonly argv: readonly string[];
  readonly note?: string;
}

/** A failure and the log line it was read from (0-based), used to order runners by appearance. */
export interface Found {
  readonly failure: Failure;
  readonly line: number;
}
