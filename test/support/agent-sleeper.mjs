// A stand-in agent that outlives its parent when asked: it writes its pid to $AGENT_DIR/pid-<run>,
// then waits until $AGENT_DIR/release exists and exits 0. It writes nothing to stdout or stderr, so
// a parent that dies does not take it down through a broken pipe.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const dir = process.env.AGENT_DIR;
writeFileSync(join(dir, `pid-${process.env.FIXLOOP_RUN_ID}`), String(process.pid));
const timer = setInterval(() => {
  if (existsSync(join(dir, 'release'))) {
    clearInterval(timer);
    process.exit(0);
  }
}, 50);
// Never outlive a test run by much.
setTimeout(() => process.exit(3), 60_000).unref();
