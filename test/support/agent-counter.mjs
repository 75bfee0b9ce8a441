// A stand-in agent for process-level tests: it records that it was started, and with which
// environment, then exits 0 (or the code in AGENT_EXIT_CODE).
import { appendFileSync } from 'node:fs';
appendFileSync(
  process.env.COUNTER_FILE,
  JSON.stringify({
    runId: process.env.FIXLOOP_RUN_ID,
    taskId: process.env.FIXLOOP_TASK_ID,
    env: Object.keys(process.env).sort(),
  }) + '\n',
);
process.exit(Number(process.env.AGENT_EXIT_CODE ?? 0));
