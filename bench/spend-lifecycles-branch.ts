// The spend corpus's lifecycles of a head against its base (issue 36 §2): a head that conflicts with
// its base, which the agent resolves in one run, and a head only behind a base that requires
// up-to-date branches, which GitHub's update-branch answers with no model run at all.
import { ok, ci, oneLine, type Lifecycle } from './spend-lifecycle.js';

export const conflict: Lifecycle = {
  id: 'conflict',
  title: 'head conflicts with its base',
  pr: 141,
  oracle: 1,
  informed: 1,
  informedWhy: 'GitHub says the head conflicts with main: only a run can resolve it, and one does',
  fixes: 1,
  firstHead: 'A',
  world: [ci('A', [ok('lint'), ok('test')]), { kind: 'merge_state', head: 'A', state: 'dirty' }],
  agent: {
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'fix',
        // The merge of main with the conflict resolved: the agent's side and main's kept.
        files: [oneLine('src/price.ts', 12, '  return total;', '  return roundCents(total, currency);')],
        then: [{ kind: 'merge_state', head: 'B', state: 'clean' }, ci('B', [ok('lint'), ok('test')])],
      },
    ],
  },
  fixloop: 'one attempt with the conflict frame (merge or rebase onto main and resolve); the resolution is clean',
};

export const behindBranch: Lifecycle = {
  id: 'behind-branch',
  title: 'head behind a base requiring up-to-date branches',
  pr: 142,
  oracle: 0,
  informed: 0,
  informedWhy: "only behind main: GitHub's update-branch brings it up to date, no model run needed",
  fixes: 1,
  firstHead: 'A',
  world: [ci('A', [ok('lint'), ok('test')]), { kind: 'merge_state', head: 'A', state: 'behind' }],
  updates: { A: { to: 'B', then: [ci('B', [ok('lint'), ok('test')])] } },
  agent: {},
  fixloop: "GitHub's update-branch, recorded as fixloop's action and counted as an attempt; no run",
};
