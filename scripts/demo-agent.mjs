// The demo's agent (scripts/demo.ts), run by fixloop's command runner in a fresh checkout of the
// pull request's branch: it does what the protocol block asks of a real agent — read the checks with
// its run token, fix, commit and push to the same branch, report one outcome — with a scripted fix
// in place of a model. What it prints goes to the run's log (GET /api/runs/{id}).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const api = process.env.FIXLOOP_API_URL;
const auth = { authorization: `Bearer ${process.env.FIXLOOP_RUN_TOKEN}`, 'content-type': 'application/json' };

const checks = await (await fetch(`${api}/api/run/checks?failing=true`, { headers: auth })).json();
console.log(`demo agent: the failing checks, as GET /api/run/checks gives them:\n${JSON.stringify(checks, null, 2)}`);

// The fix: sum() added one too many. (It leaves the second bug, so CI goes red again.)
const source = readFileSync('sum.js', 'utf8');
writeFileSync('sum.js', source.replace('a + b + 1', 'a + b'));
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();
git('commit', '-qam', 'fix: sum() adds its two arguments');
git('push', '-q', 'origin', 'HEAD');
console.log(`demo agent: pushed ${git('rev-parse', 'HEAD')}`);

const res = await fetch(`${api}/api/run/outcome`, {
  method: 'POST',
  headers: auth,
  body: JSON.stringify({ outcome: 'action_taken' }),
});
console.log(`demo agent: reported action_taken (${res.status})`);
process.exit(res.ok ? 0 : 1);
