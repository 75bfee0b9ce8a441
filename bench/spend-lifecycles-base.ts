// The spend benchmark's lifecycles of a red base (issue 36 item 4): the base branch breaks under many
// agent pull requests at once. What one is: bench/spend-lifecycle.ts.
import { fail, ok, ci, NOTHING, type Lifecycle } from './spend-lifecycle.js';

const LOCALE_FAIL =
  "FAIL src/money.test.ts > formats a price\nAssertionError: expected '1,50 €' to be '€1.50' (ICU 78 changed the default locale)";

export const redBaseManyPulls: Lifecycle = {
  id: 'red-base-many',
  title: 'a red base under many pull requests',
  pr: 141,
  oracle: 0,
  informed: 0,
  informedWhy:
    "main's head fails the same check under eight pull requests: none of them broke it, no agent can fix it there",
  fixes: 0,
  firstHead: 'A',
  base: [ok('lint'), fail('test', LOCALE_FAIL)],
  world: [ci('A', [ok('lint'), fail('test', LOCALE_FAIL)])],
  agent: { A: [NOTHING] },
  alsoHeld: 7,
  fixloop: 'triage: red on base (T1) for all eight, no attempt; one base notice that all eight join',
  notice: { reason: /^base notice ×1 \(8 pull requests held\)$/, what: 'one base notice for the eight' },
};
