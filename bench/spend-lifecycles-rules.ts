// The spend corpus's lifecycles of rules per check (issue 36 item 3): a check the Work's rule hands
// to a person is never worth a model run, whatever a naive policy would spend on it.
import { ok, fail, ci, oneLine, type Lifecycle } from './spend-lifecycle.js';

const E2E_TIMEOUT = [
  'checkout › pays with a saved card',
  "Error: page.click: Timeout 30000ms exceeded waiting for locator('#pay')",
  '  at tests/e2e/checkout.spec.ts:41:16',
].join('\n');

export const ruledToPerson: Lifecycle = {
  id: 'check-ruled-to-person',
  title: 'a check ruled to a person (e2e: 0 attempts)',
  pr: 146,
  oracle: 0,
  informed: 0,
  informedWhy: "the Work's rule says e2e failures are a person's: known before any run, so none is owed",
  fixes: 0,
  firstHead: 'A',
  checks: [{ name: 'e2e*', attempts: 0 }],
  world: [ci('A', [ok('lint'), ok('test'), fail('e2e (chrome)', E2E_TIMEOUT)])],
  agent: {
    // Resumed anyway (a naive policy), the agent only pads the timeout; e2e fails the same way.
    A: [
      {
        kind: 'push',
        to: 'B',
        verdict: 'attempt',
        files: [
          oneLine(
            'tests/e2e/checkout.spec.ts',
            41,
            '  await page.click("#pay");',
            '  await page.click("#pay", { timeout: 60000 });',
          ),
        ],
        then: [ci('B', [ok('lint'), ok('test'), fail('e2e (chrome)', E2E_TIMEOUT)])],
      },
    ],
  },
  fixloop: 'the rule hands e2e to a person: one notice (check_rule_person), no run',
  notice: { reason: /^check_rule_person$/, what: 'check_rule_person' },
};
