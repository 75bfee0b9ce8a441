// Scenario f: the 76-delivery matrix storm with a command runner; the agent must start once, soon after the last ack.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { peakRssMb, registerTask, startFixloop, type Proc } from './procs.js';
import { fixloopOptions, httpBurst, serverErrors, writeConfig } from './harness.js';
import { details, f0, failed, ms, row, statuses } from './report.js';
import { API_TOKEN, CONCURRENCY, TARGETS, TMP } from './settings.js';

// ---------------------------------------------------------------- scenario f: the 76-delivery storm → agent start
export async function stormToAgent(): Promise<void> {
  const name = 'storm 76 → agent start (SQLite)';
  let app: Proc | undefined;
  try {
    const dir = join(TMP, 'f');
    mkdirSync(dir, { recursive: true });
    const starts = join(dir, 'agent-starts.txt');
    const agent = "require('node:fs').appendFileSync(process.env.BENCH_AGENT_FILE, Date.now() + '\\n')";
    const config = writeConfig('f', {
      kind: 'command',
      command: [process.execPath, '-e', agent],
      envAllow: ['BENCH_AGENT_FILE'],
      // The agent writes its start into the benchmark's own directory: no other user (decision 0021).
      isolation: 'none',
    });
    const o = fixloopOptions('f', `sqlite:${join(dir, 'fixloop.sqlite')}`, config, { BENCH_AGENT_FILE: starts });
    delete o.cpuProfDir; // not a throughput scenario
    app = await startFixloop(o);
    await registerTask(app.url, API_TOKEN);
    const burst = await httpBurst([app.url], { kind: 'matrixStorm', seed: 5 }, [app.pid], {
      warmupMs: 0,
      durationMs: 30_000,
    });
    const report = burst.load;
    const t0 = Date.now();
    while (!existsSync(starts) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 5));
    // Give a second start (which must not happen) time to show itself.
    await new Promise((r) => setTimeout(r, 1500));
    const lines = existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n').filter(Boolean) : [];
    const firstStart = lines.length ? Number(lines[0]) : Number.NaN;
    const delay = firstStart - report.lastFinishAt;
    const ok = Object.keys(report.resultsAll).every((k) => k === '200' || k === '202');
    details.push(
      `f: ${report.total} deliveries at ${CONCURRENCY} concurrent acknowledged in ${f0(report.lastFinishAt - report.firstStartAt)} ms (${statuses(report.resultsAll)}); ` +
        `agent started ${lines.length}×${Number.isFinite(firstStart) ? `, ${f0(firstStart - report.firstStartAt)} ms after the first send and ${f0(delay)} ms after the last ack` : ''} (agent time includes spawning node)`,
    );
    row({
      id: 'f',
      scenario: name,
      value: Number.isFinite(delay) ? `${f0(delay)} ms` : 'never',
      target: `< ${TARGETS.fStartMs} ms, 1 start`,
      pass: Number.isFinite(delay) && delay < TARGETS.fStartMs && lines.length === 1 && ok,
      p50: ms(report.p50Ms),
      p99: ms(report.p99Ms),
      rss: `${f0(peakRssMb(app.pid))} MB`,
      notes: `started ${lines.length}×; 76 acks in ${f0(report.lastFinishAt - report.firstStartAt)} ms${delay < 0 ? '; agent began before the last ack' : ''}${ok ? '' : '; NON-2xx!'}`,
    });
  } catch (err) {
    failed('f', name, err);
  } finally {
    await app?.stop();
    if (app) serverErrors('f', app);
  }
}
