// The failure report names the local command (SPEC J3): from a failing CI job's log (ANSI escapes
// and timestamps already stripped, J2) recognize vitest, jest, node --test, pytest, go test,
// cargo test, eslint or tsc; list what failed; give the one command that reruns exactly that.
// Several runners in one log: `localCommand` reports the one whose first failure comes first in the
// log (the job stopped there, or it is what broke first); `localCommands` reports all, in that order.
import * as cargoTest from './cargo-test.js';
import * as eslint from './eslint.js';
import * as goTest from './go-test.js';
import * as jest from './jest.js';
import * as nodeTest from './node-test.js';
import * as pytest from './pytest.js';
import { displayCommand } from './shell-quote.js';
import * as tsc from './tsc.js';
import type { LocalCommandReport, Runner } from './types.js';
import * as vitest from './vitest.js';

export type { Failure, LocalCommandReport, Tool } from './types.js';
export { displayCommand, shellQuote } from './shell-quote.js';

/** Every runner, in `TOOLS` order: the order of preference when two start on the same line. */
const RUNNERS: readonly Runner[] = [vitest, jest, nodeTest, pytest, goTest, cargoTest, eslint, tsc];

/** A report per runner whose failures the log shows, the earliest in the log first. */
export function localCommands(log: string): LocalCommandReport[] {
  const hits: Array<{ at: number; report: LocalCommandReport }> = [];
  for (const runner of RUNNERS) {
    const at = runner.detect(log);
    if (at < 0) continue;
    const failures = runner.parse(log);
    const { argv, note } = runner.command(failures);
    const report: LocalCommandReport = {
      tool: runner.tool,
      failures,
      command: argv,
      display: displayCommand(argv),
      ...(note === undefined ? {} : { note }),
    };
    hits.push({ at, report });
  }
  return hits.sort((a, b) => a.at - b.at).map((h) => h.report);
}

/** The report for the runner that failed first in the log, or null when no runner's failures show. */
export function localCommand(log: string): LocalCommandReport | null {
  return localCommands(log)[0] ?? null;
}
