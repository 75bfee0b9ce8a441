// `npm run demo -- --once` (README, "Quick start"): the whole loop on this machine through `fixloop serve`
// — a red push, one attempt, the agent's pushed fix, red again, the one notice and the hand-off — ends
// and exits 0, telling the reader each step, where to look and with what token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('npm run demo -- --once runs the loop to its notice and exits 0', { timeout: 90_000 }, () => {
  const env = { ...process.env };
  delete env.PORT; // the demo listens on a free port unless told one
  const demo = spawnSync('npm', ['run', '--silent', 'demo', '--', '--once'], { cwd: ROOT, env, encoding: 'utf8' });
  const out = `${demo.stdout}\n--- stderr ---\n${demo.stderr}`;
  assert.equal(demo.status, 0, out);
  assert.match(demo.stdout, /open {4}http:\/\/127\.0\.0\.1:\d+\//);
  assert.match(demo.stdout, /token {3}[0-9a-f]{32}/);
  const steps = [
    /CI goes red on that push[\s\S]*?fixloop answered 202/,
    /fixloop resumes the agent: attempt 1/,
    /run \d+ completed; the agent pushed [0-9a-f]{7}/,
    /attempt \d+: acknowledged/,
    /CI goes red again/,
    /"reason": "budget_spent"[\s\S]*?"attemptsUsed": 1/,
    /labels: fixloop:needs-human; state comment \d+/,
    /The loop ran to its end\./,
  ];
  let rest = demo.stdout;
  for (const step of steps) {
    const m = step.exec(rest);
    assert.ok(m, `${step} (in order)\n${out}`);
    rest = rest.slice(m.index + m[0].length);
  }
});
