// SPEC A5, A6, D: a repository routes to the Work that holds it, from fixloop's own configuration.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { routeRepository } from './route.js';
import type { Work } from './types.js';

const ACME: Work = {
  name: 'shop',
  account: 'Acme',
  repositories: [
    { name: 'acme/shop-data', role: 'data' },
    { name: 'Acme/Shop-Website', role: 'website' },
    { name: 'acme/shop-tools', role: 'other' },
    // Listed under the Work but not under its owning account: never matched.
    { name: 'mallory/shop-data', role: 'data' },
  ],
};
const GLOBEX: Work = {
  name: 'globex',
  account: 'globex',
  repositories: [{ name: 'globex/app', role: 'data' }],
};
const WORKS = [ACME, GLOBEX] as const;

type Expect =
  | { kind: 'data'; work: Work; repository: string }
  | { kind: 'refuse'; reason: 'no_work' | 'not_data_repo'; work: Work | null };

const TABLE: ReadonlyArray<[string, string, Expect]> = [
  ['the data repo routes to its Work', 'acme/shop-data', { kind: 'data', work: ACME, repository: 'acme/shop-data' }],
  [
    'the data repo routes case-insensitively, reported lower-case',
    'ACME/Shop-Data',
    { kind: 'data', work: ACME, repository: 'acme/shop-data' },
  ],
  [
    'the data repo of a second Work routes to that Work',
    'Globex/App',
    { kind: 'data', work: GLOBEX, repository: 'globex/app' },
  ],
  [
    'a website repo of the Work is not its data repo',
    'acme/shop-website',
    { kind: 'refuse', reason: 'not_data_repo', work: ACME },
  ],
  [
    'a website repo is refused case-insensitively too',
    'ACME/SHOP-WEBSITE',
    { kind: 'refuse', reason: 'not_data_repo', work: ACME },
  ],
  [
    'an "other" repo of the Work is not its data repo',
    'acme/shop-tools',
    { kind: 'refuse', reason: 'not_data_repo', work: ACME },
  ],
  ['an unknown repository belongs to no Work', 'acme/unknown', { kind: 'refuse', reason: 'no_work', work: null }],
  ['an unknown account belongs to no Work', 'initech/shop-data', { kind: 'refuse', reason: 'no_work', work: null }],
  [
    'a repo listed under a Work but not under its account is no_work',
    'mallory/shop-data',
    { kind: 'refuse', reason: 'no_work', work: null },
  ],
  ['an account-name prefix is not the account', 'acmex/shop-data', { kind: 'refuse', reason: 'no_work', work: null }],
];

describe('A6: routing a repository to its Work', () => {
  for (const [what, repo, expected] of TABLE) {
    test(`A6: ${what} (${repo})`, () => {
      assert.deepEqual(routeRepository(WORKS, repo), expected);
    });
  }

  test('A6: with no Works configured, everything is no_work', () => {
    assert.deepEqual(routeRepository([], 'acme/shop-data'), { kind: 'refuse', reason: 'no_work', work: null });
  });

  test("A6: a prefix account name does not capture another account's repo", () => {
    const works: Work[] = [
      { name: 'a', account: 'acme', repositories: [{ name: 'acme-labs/x', role: 'data' }] },
      { name: 'b', account: 'acme-labs', repositories: [{ name: 'acme-labs/x', role: 'data' }] },
    ];
    const r = routeRepository(works, 'acme-labs/x');
    assert.equal(r.kind, 'data');
    assert.equal(r.work?.name, 'b');
  });
});
