// The fake GitHub of `npm run bench:poll` on a worker thread of its own: GitHub is not in fixloop's
// process, so the fake's work (building answers for thousands of pull requests) must not sit on
// fixloop's event loop while webhook acknowledgements are timed. The bench drives it by messages:
// seed pull requests, move heads, read and reset what was spent (a 304 free, GraphQL by points).
import { parentPort, workerData } from 'node:worker_threads';
import { startFakeGitHub } from '../test/support/fake-github/server.js';

export type FakeOp =
  | { op: 'addUserToken'; login: string }
  | { op: 'seed'; repository: string; prs: number[]; heads: string[] }
  | { op: 'setHeads'; repository: string; prs: number[]; heads: string[] }
  | { op: 'setNow'; iso: string }
  | { op: 'spend' }
  | { op: 'resetSpend' }
  | { op: 'close' };

const fake = await startFakeGitHub({ validate: false, latencyMs: (workerData as { latencyMs: number }).latencyMs });
let now = Date.parse('2026-11-30T08:00:00Z');
fake.state.now = () => new Date(now);
parentPort!.postMessage({ ready: fake.url });

parentPort!.on('message', async ({ id, msg }: { id: number; msg: FakeOp }) => {
  let result: unknown = null;
  switch (msg.op) {
    case 'addUserToken':
      result = fake.addUserToken(msg.login);
      break;
    case 'seed':
      msg.prs.forEach((pr, i) => {
        fake.addPull(msg.repository, pr, { headSha: msg.heads[i]!, headRef: `agent/fix-${pr}` });
        fake.addCheckRun(msg.repository, msg.heads[i]!, { name: 'test', status: 'in_progress', conclusion: null });
      });
      break;
    case 'setHeads':
      msg.prs.forEach((pr, i) => {
        fake.setHead(msg.repository, pr, msg.heads[i]!);
        fake.addCheckRun(msg.repository, msg.heads[i]!, { name: 'test', status: 'in_progress', conclusion: null });
      });
      break;
    case 'setNow':
      now = Date.parse(msg.iso);
      break;
    case 'spend':
      result = { ...fake.spend };
      break;
    case 'resetSpend':
      fake.resetSpend();
      fake.clearRequests();
      break;
    case 'close':
      await fake.close();
      break;
  }
  parentPort!.postMessage({ id, result });
});
