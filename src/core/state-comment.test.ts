// SPEC K8 (with K5): the one state comment on the pull request; the ledger is the truth, a hand edit is detected.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import {
  STATE_MARKER,
  canonicalJson,
  compareWithLedger,
  findOwnStateComment,
  findStateComment,
  parseStateComment,
  renderStateComment,
  type LoopState,
  type StateSummaryFacts,
} from './state-comment.js';
import { ATTEMPT_STATUSES } from './types.js';
import { STOP_REASONS } from './reasons.js';
import { GITHUB_WORDS } from '../github/words.js';
import { GITLAB_WORDS } from '../gitlab/words.js';

const STATE: LoopState = {
  taskId: 12,
  repository: 'acme/app',
  pullRequest: 7,
  attempts: [
    {
      coordinate: 'a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6a1b2',
      status: 'dispatched',
      fingerprint: 'test|9f86d081884c',
      createdAt: '2026-12-01T10:00:00.000Z',
    },
    {
      coordinate: 'review:41',
      status: 'dispatched',
      fingerprint: 'review|2c26b46b68ff',
      createdAt: '2026-12-01T11:00:00.000Z',
    },
  ],
  notice: { reason: 'budget_spent', headSha: 'ffeeddccbbaa99887766554433221100ffeeddcc', attemptsUsed: 2 },
  parked: false,
  approveOneUsed: false,
  updatedAt: '2026-12-01T11:30:00.000Z',
};

const jsonOf = (body: string): string => /```json\n([\s\S]*?)\n```/.exec(body)?.[1] ?? '';
const replaceJson = (body: string, json: string): string => body.replace(jsonOf(body), json);

describe('K8: rendering the state comment', () => {
  test('K8: the body starts with the marker and ends with the digest line', () => {
    const body = renderStateComment(STATE);
    assert.ok(body.startsWith(`${STATE_MARKER}\n`));
    assert.match(body.split('\n').at(-1) ?? '', /^<!-- fixloop-digest: [0-9a-f]{64} -->$/);
  });

  test('K8: the JSON block is readable and holds task, repository#pr, attempts, notice, parked, approveOneUsed, updatedAt', () => {
    const doc = JSON.parse(jsonOf(renderStateComment(STATE)));
    assert.deepEqual(doc, {
      version: 1,
      task: 12,
      pullRequest: 'acme/app#7',
      attempts: STATE.attempts,
      notice: STATE.notice,
      parked: false,
      approveOneUsed: false,
      updatedAt: '2026-12-01T11:30:00.000Z',
    });
    assert.ok(jsonOf(renderStateComment(STATE)).includes('\n  "task": 12,'), 'pretty-printed for people');
  });

  test('K8: the digest is the SHA-256 hex of the canonical JSON', () => {
    const body = renderStateComment(STATE);
    const expected = createHash('sha256')
      .update(canonicalJson(JSON.parse(jsonOf(body))))
      .digest('hex');
    assert.ok(body.endsWith(`<!-- fixloop-digest: ${expected} -->`));
  });

  test('K8: with a key the digest is an HMAC-SHA-256 of the canonical JSON', () => {
    const body = renderStateComment(STATE, 'secret');
    const expected = createHmac('sha256', 'secret')
      .update(canonicalJson(JSON.parse(jsonOf(body))))
      .digest('hex');
    assert.ok(body.endsWith(`<!-- fixloop-digest: ${expected} -->`));
  });

  test('K8: rendering is deterministic', () => {
    assert.equal(renderStateComment(STATE), renderStateComment(structuredClone(STATE)));
  });

  test('K5/K8: a stopped loop says why and names the approve-one label', () => {
    const body = renderStateComment(STATE);
    assert.match(body, /^\*\*fixloop: stopped — a person decides\*\*$/m);
    assert.match(
      body,
      /^- \*\*State:\*\* stopped: the automatic fix budget is spent \(last head seen `ffeeddccbbaa`\)$/m,
    );
    assert.match(body, /^- \*\*Attempts:\*\* 2 automatic attempts used$/m);
    assert.ok(body.includes('`fixloop:approve-one`'));
  });

  test('K5/K8: a parked loop says it will not resume on its own', () => {
    assert.match(
      renderStateComment({ ...STATE, parked: true }),
      /\*\*fixloop: parked — a person decides\*\*.*parked this pull request and will not resume on its own/s,
    );
  });

  test('K8: a running loop says it is watching, with the attempt count', () => {
    assert.match(
      renderStateComment({ ...STATE, notice: null, attempts: [STATE.attempts[0]!] }),
      /\*\*fixloop: watching CI\*\*\n\n- \*\*State:\*\* watching this pull request's CI\n- \*\*Attempts:\*\* 1 automatic attempt so far$/m,
    );
  });

  test('K8: text in the state cannot close the fence or forge a marker (backticks, <, > are escaped)', () => {
    const nasty: LoopState = {
      ...STATE,
      attempts: [{ ...STATE.attempts[0]!, fingerprint: '```\n<!-- fixloop-digest: ' + '0'.repeat(64) + ' -->\n```' }],
    };
    const body = renderStateComment(nasty);
    const json = jsonOf(body);
    assert.ok(!/[<>`]/.test(json));
    assert.equal(body.match(/<!-- fixloop-digest/g)?.length, 1);
    assert.deepEqual(parseStateComment(body), { state: nasty, intact: true, document: JSON.parse(json) });
  });
});

describe('K8: reading the state comment back', () => {
  test('K8: what fixloop wrote reads back intact and equal', () => {
    const parsed = parseStateComment(renderStateComment(STATE));
    assert.equal(parsed?.intact, true);
    assert.deepEqual(parsed?.state, STATE);
  });

  test('K8: a body without the marker is not a state comment', () => {
    assert.equal(parseStateComment('LGTM, thanks!'), null);
    assert.equal(parseStateComment(renderStateComment(STATE).replace(STATE_MARKER, '')), null);
  });

  test('K8: a hand-edited value is detected (digest mismatch), and the edited state is still shown', () => {
    const body = renderStateComment(STATE).replace('"attemptsUsed": 2', '"attemptsUsed": 0');
    const parsed = parseStateComment(body);
    assert.equal(parsed?.intact, false);
    assert.equal(parsed?.state?.notice?.attemptsUsed, 0);
  });

  test('K8: re-indenting the JSON alone is not an edit (the digest is over canonical JSON)', () => {
    const body = renderStateComment(STATE);
    const parsed = parseStateComment(replaceJson(body, JSON.stringify(JSON.parse(jsonOf(body)))));
    assert.equal(parsed?.intact, true);
  });

  test("K8: GitHub's editor saving CRLF line endings is not an edit", () => {
    assert.equal(parseStateComment(renderStateComment(STATE).replace(/\n/g, '\r\n'))?.intact, true);
  });

  test('K8: editing only the human summary is not a state edit', () => {
    assert.equal(
      parseStateComment(renderStateComment(STATE).replace('fixloop stopped', 'the bot stopped'))?.intact,
      true,
    );
  });

  test('K8: unparsable JSON → no state, not intact', () => {
    const body = replaceJson(renderStateComment(STATE), '{ "task": 12, oops');
    assert.deepEqual(parseStateComment(body), { state: null, intact: false, document: undefined });
  });

  test('K8: a marker with no JSON block → no state, not intact', () => {
    assert.deepEqual(parseStateComment(`${STATE_MARKER}\nsomeone deleted the rest`), {
      state: null,
      intact: false,
      document: undefined,
    });
  });

  test('K8: a removed digest line → not intact', () => {
    const body = renderStateComment(STATE).replace(/<!-- fixloop-digest: [0-9a-f]{64} -->/, '');
    const parsed = parseStateComment(body);
    assert.equal(parsed?.intact, false);
    assert.deepEqual(parsed?.state, STATE);
  });

  test('K8: JSON of the wrong shape → no state, not intact, the document kept for the report', () => {
    const body = renderStateComment(STATE).replace('"status": "dispatched"', '"status": "victory"');
    const parsed = parseStateComment(body);
    assert.equal(parsed?.state, null);
    assert.equal(parsed?.intact, false);
    assert.equal((parsed?.document as { attempts: Array<{ status: string }> }).attempts[0]?.status, 'victory');
  });

  test('K8: without a key, an editor who recomputes the SHA-256 passes; with a key, the HMAC catches it', () => {
    const forge = (body: string): string => {
      const json = jsonOf(body).replace('"parked": false', '"parked": true');
      const d = createHash('sha256')
        .update(canonicalJson(JSON.parse(json)))
        .digest('hex');
      return replaceJson(body, json).replace(/fixloop-digest: [0-9a-f]{64}/, `fixloop-digest: ${d}`);
    };
    assert.equal(parseStateComment(forge(renderStateComment(STATE)))?.intact, true);
    assert.equal(parseStateComment(forge(renderStateComment(STATE, 'k')), 'k')?.intact, false);
  });

  test('K8: a keyed comment is intact only under the same key', () => {
    const body = renderStateComment(STATE, 'k1');
    assert.equal(parseStateComment(body, 'k1')?.intact, true);
    assert.equal(parseStateComment(body, 'k2')?.intact, false);
    assert.equal(parseStateComment(body)?.intact, false);
  });

  test('K8 (property): every state round-trips intact, and any changed fingerprint is detected', () => {
    const arbState: fc.Arbitrary<LoopState> = fc.record({
      taskId: fc.integer({ min: 1, max: 1e6 }),
      repository: fc.constantFrom('acme/app', 'o/r.name', 'x-y/z_w'),
      pullRequest: fc.integer({ min: 1, max: 1e6 }),
      attempts: fc.array(
        fc.record({
          coordinate: fc.string(),
          status: fc.constantFrom(...ATTEMPT_STATUSES),
          fingerprint: fc.string(),
          createdAt: fc.constant('2026-12-01T10:00:00.000Z'),
        }),
        { maxLength: 4 },
      ),
      notice: fc.option(
        fc.record({
          reason: fc.constantFrom(...STOP_REASONS),
          headSha: fc.option(
            fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 }),
            { nil: null },
          ),
          attemptsUsed: fc.nat(5),
        }),
        { nil: null },
      ),
      parked: fc.boolean(),
      approveOneUsed: fc.boolean(),
      updatedAt: fc.constant('2026-12-01T11:00:00.000Z'),
    });
    fc.assert(
      fc.property(arbState, fc.string(), (s, other) => {
        const body = renderStateComment(s);
        assert.deepEqual(parseStateComment(body)?.state, JSON.parse(JSON.stringify(s)));
        assert.equal(parseStateComment(body)?.intact, true);
        if (s.attempts.length > 0 && other !== s.attempts[0]!.fingerprint) {
          const doc = JSON.parse(jsonOf(body));
          doc.attempts[0].fingerprint = other;
          assert.equal(parseStateComment(replaceJson(body, JSON.stringify(doc, null, 2)))?.intact, false);
        }
      }),
    );
  });
});

describe('K8: finding fixloop’s own comment', () => {
  const body = renderStateComment(STATE);
  test('K8: picks fixloop’s own comment with the marker', () => {
    const comments = [
      { id: 1, body: 'hello', author: 'alice' },
      { id: 2, body, author: 'fixloop[bot]' },
    ];
    assert.equal(findStateComment(comments, 'fixloop[bot]')?.id, 2);
  });

  test('K8: a copy posted by someone else is ignored', () => {
    assert.equal(findStateComment([{ id: 3, body, author: 'mallory' }], 'fixloop[bot]'), null);
  });

  test('K8: fixloop’s own comments without the marker are ignored', () => {
    assert.equal(findStateComment([{ id: 4, body: 'fixloop stopped.', author: 'fixloop[bot]' }], 'fixloop[bot]'), null);
  });

  test('K8: a hand-edited comment with text added above the marker is still found (so it is updated, not duplicated)', () => {
    assert.equal(
      findStateComment([{ id: 5, body: `edited by alice\n${body}`, author: 'fixloop[bot]' }], 'fixloop[bot]')?.id,
      5,
    );
  });

  test('K8: with several of its own (a lost race), the oldest is the one to update', () => {
    const comments = [
      { id: 9, body, author: 'fixloop[bot]' },
      { id: 6, body, author: 'fixloop[bot]' },
    ];
    assert.equal(findStateComment(comments, 'fixloop[bot]')?.id, 6);
  });

  test('K8: the login is compared without case and with or without [bot]', () => {
    assert.equal(findStateComment([{ id: 7, body, author: 'FixLoop[bot]' }], 'fixloop')?.id, 7);
  });

  test('K8: with no known login nothing is claimed as ours', () => {
    assert.equal(findStateComment([{ id: 8, body, author: 'fixloop[bot]' }], null), null);
  });

  test('K8: a deleted author is never fixloop', () => {
    assert.equal(findStateComment([{ id: 8, body, author: null }], 'fixloop[bot]'), null);
  });
});

describe('K8: finding fixloop’s own comment when its login is unknown (GET /user answered 403)', () => {
  const KEY = 'state-key';
  const signed = renderStateComment(STATE, KEY);
  const own = (o: Partial<Parameters<typeof findOwnStateComment>[1]> = {}) => ({
    recordedId: null,
    selfLogin: null,
    key: KEY,
    taskId: STATE.taskId,
    repository: STATE.repository,
    pullRequest: STATE.pullRequest,
    ...o,
  });
  const bot = (id: number, body: string) => ({ id, body, author: 'github-actions[bot]', authorType: 'Bot' });

  test('K8: the comment whose id the ledger kept is ours, even with its marker edited away', () => {
    const comments = [
      bot(3, signed),
      { id: 5, body: 'edited by hand', author: 'github-actions[bot]', authorType: 'Bot' },
    ];
    assert.equal(findOwnStateComment(comments, own({ recordedId: '5' }))?.id, 5);
  });

  test('K8: a kept id whose comment is gone falls back to the signed state', () => {
    assert.equal(findOwnStateComment([bot(3, signed)], own({ recordedId: '99' }))?.id, 3);
  });

  test('K8: with a known login, the login decides as before', () => {
    const comments = [bot(3, signed), { id: 4, body: signed, author: 'fixloop[bot]', authorType: 'Bot' }];
    assert.equal(findOwnStateComment(comments, own({ selfLogin: 'fixloop[bot]' }))?.id, 4);
  });

  test('K8: a bot’s comment whose state digest verifies with fixloop’s key and names this Task is ours; the oldest of several', () => {
    assert.equal(findOwnStateComment([bot(8, signed), bot(6, signed)], own())?.id, 6);
  });

  test('K8: a person’s verbatim copy of the signed comment is never taken for ours', () => {
    assert.equal(findOwnStateComment([{ id: 3, body: signed, author: 'mallory', authorType: 'User' }], own()), null);
  });

  test('K8: a state signed with another key, or not signed with a key at all, is not ours', () => {
    const comments = [bot(3, renderStateComment(STATE, 'another key')), bot(4, renderStateComment(STATE))];
    assert.equal(findOwnStateComment(comments, own()), null);
  });

  test('K8: a signed state of another Task or pull request is not this Task’s comment', () => {
    assert.equal(findOwnStateComment([bot(3, signed)], own({ taskId: 13 })), null);
    assert.equal(findOwnStateComment([bot(3, signed)], own({ pullRequest: 8 })), null);
    assert.equal(findOwnStateComment([bot(3, signed)], own({ repository: 'ACME/App' }))?.id, 3);
  });

  test('K8: a hand-edited comment (digest no longer verifies) is not proven ours by its content', () => {
    const edited = signed.replace('"attemptsUsed": 2', '"attemptsUsed": 0');
    assert.equal(findOwnStateComment([bot(3, edited)], own()), null);
  });
});

describe('K8: comparing a tampered comment with the ledger (the truth)', () => {
  test('K8: an untouched comment agrees with the ledger', () => {
    assert.deepEqual(compareWithLedger(parseStateComment(renderStateComment(STATE))!, STATE), []);
  });

  test('K8: each edited field is named with both values', () => {
    const body = renderStateComment(STATE)
      .replace('"attemptsUsed": 2', '"attemptsUsed": 0')
      .replace('"status": "dispatched"', '"status": "over_budget"');
    assert.deepEqual(compareWithLedger(parseStateComment(body)!, STATE), [
      { path: '$.attempts[0].status', comment: 'over_budget', ledger: 'dispatched' },
      { path: '$.notice.attemptsUsed', comment: 0, ledger: 2 },
    ]);
  });

  test('K8: a removed attempt and an added key are reported', () => {
    const doc = JSON.parse(jsonOf(renderStateComment(STATE)));
    doc.attempts.pop();
    doc['reset budget'] = true;
    const parsed = parseStateComment(replaceJson(renderStateComment(STATE), JSON.stringify(doc, null, 2)))!;
    assert.deepEqual(compareWithLedger(parsed, STATE), [
      { path: '$.attempts[1]', comment: undefined, ledger: STATE.attempts[1] },
      { path: '$["reset budget"]', comment: true, ledger: undefined },
    ]);
  });

  test('K8: a notice removed by hand is reported against the ledger’s notice', () => {
    const parsed = parseStateComment(renderStateComment({ ...STATE, notice: null }))!;
    assert.deepEqual(compareWithLedger(parsed, STATE), [{ path: '$.notice', comment: null, ledger: STATE.notice }]);
  });

  test('K8: an unreadable comment differs as a whole', () => {
    const parsed = parseStateComment(`${STATE_MARKER}\n\`\`\`json\nnot json\n\`\`\``)!;
    const d = compareWithLedger(parsed, STATE);
    assert.equal(d.length, 1);
    assert.equal(d[0]?.path, '$');
    assert.equal(d[0]?.comment, undefined);
  });

  test('K8: a "__proto__" key in an edited comment is just a key', () => {
    const body = replaceJson(
      renderStateComment(STATE),
      jsonOf(renderStateComment(STATE)).replace('{', '{ "__proto__": { "x": 1 },'),
    );
    const d = compareWithLedger(parseStateComment(body)!, STATE);
    assert.deepEqual(d, [{ path: '$.__proto__', comment: { x: 1 }, ledger: undefined }]);
  });
});

describe('K8: canonical JSON', () => {
  test('K8: keys are sorted at every depth and whitespace is dropped', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } }),
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });
});

describe('V4: the grants in the state comment', () => {
  const WITH = (used: number, max: number): LoopState => ({
    ...STATE,
    grants: { used, max, left: Math.max(0, max - used) },
  });

  test('V4: the JSON holds the grants used, the cap and what is left, and reads back intact', () => {
    const body = renderStateComment(WITH(1, 3), 'k');
    assert.deepEqual(JSON.parse(jsonOf(body)).grants, { used: 1, max: 3, left: 2 });
    const parsed = parseStateComment(body, 'k');
    assert.equal(parsed?.intact, true);
    assert.deepEqual(parsed?.state?.grants, { used: 1, max: 3, left: 2 });
  });

  test('V4: a stop with grants left says how to grant one and what is left', () => {
    const body = renderStateComment(WITH(1, 3));
    assert.match(body, /Add the label `fixloop:approve-one` \(or comment `\/fixloop retry`\)/);
    assert.match(body, /\(1 of 3 grants of one more attempt used, 2 left\)/);
  });

  test('V4: a stop with none left says no more can be granted and how a person opens more', () => {
    const body = renderStateComment(WITH(3, 3));
    assert.match(
      body,
      /No more attempts can be granted on this pull request \(3 of 3 grants of one more attempt used, none left\)/,
    );
    assert.match(body, /`PUT \/api\/tasks\/12\/budget`/);
    assert.doesNotMatch(body, /Add the label/, 'the label would do nothing');
  });

  test('V4: while the loop watches, the summary says what is left', () => {
    const body = renderStateComment({ ...WITH(0, 3), notice: null });
    assert.match(
      body,
      /\*\*Attempts:\*\* 2 automatic attempts so far; 0 of 3 grants of one more attempt used, 3 left$/m,
    );
  });

  test('V4: a comment written before the cap existed (no grants) still reads back intact: no false tamper report', () => {
    const old = renderStateComment(STATE, 'k');
    assert.equal(JSON.parse(jsonOf(old)).grants, undefined);
    const parsed = parseStateComment(old, 'k');
    assert.equal(parsed?.intact, true);
    assert.equal(parsed?.state?.grants, undefined);
  });

  test('V4: an edited count of grants breaks the digest and is found by the comparison with the ledger', () => {
    const body = renderStateComment(WITH(3, 3), 'k');
    const edited = replaceJson(body, jsonOf(body).replace('"used": 3', '"used": 0'));
    const parsed = parseStateComment(edited, 'k')!;
    assert.equal(parsed.intact, false);
    assert.deepEqual(
      compareWithLedger(parsed, WITH(3, 3)).map((d) => d.path),
      ['$.grants.used'],
    );
  });
});

describe('K8/V2: the summary for people above the machine-readable block', () => {
  const HEAD = 'ffeeddccbbaa99887766554433221100ffeeddcc';
  const FACTS: StateSummaryFacts = {
    loopState: 'idle',
    ciState: 'red',
    headSha: HEAD,
    attemptsAllowed: 2,
    failing: ['test (ubuntu)', 'lint'],
    globalStop: false,
    skipLabel: false,
    taskUrl: 'https://fixloop.example.com/tasks/12',
    words: GITHUB_WORDS,
  };
  const WATCHING: LoopState = {
    ...STATE,
    notice: null,
    attempts: [STATE.attempts[0]!],
    grants: { used: 0, max: 3, left: 3 },
  };
  const summaryOf = (body: string) => body.slice(0, body.indexOf('<details>'));
  const line = (body: string, name: string) =>
    summaryOf(body)
      .split('\n')
      .find((l) => l.startsWith(`- **${name}`));

  test('K8: golden text of a stopped loop: headline, state, attempts of the budget, what failed, what next, the Task page', () => {
    const stopped: LoopState = { ...STATE, grants: { used: 1, max: 3, left: 2 } };
    assert.equal(
      summaryOf(renderStateComment(stopped, 'k', { ...FACTS, loopState: 'needs_person' })),
      [
        STATE_MARKER,
        '**fixloop: stopped — a person decides**',
        '',
        '- **State:** stopped: the automatic fix budget is spent (last head seen `ffeeddccbbaa`)',
        '- **Attempts:** 2 of 2 automatic attempts used; 1 of 3 grants of one more attempt used, 2 left',
        '- **What failed on `ffeeddccbbaa`:** `test (ubuntu)`, `lint`',
        '- **What happens next:** Nothing happens on its own: a person decides. Add the label `fixloop:approve-one` ' +
          '(or comment `/fixloop retry`) to allow exactly one more automatic attempt (1 of 3 grants of one more attempt ' +
          'used, 2 left), or take the pull request from here by hand.',
        '- **Task page:** [acme/app#7 in fixloop](https://fixloop.example.com/tasks/12)',
        '',
        '',
      ].join('\n'),
    );
  });

  test('K8: the JSON sits folded in a <details> toggle below the summary, and the digest is still the last line', () => {
    const body = renderStateComment(WATCHING, 'k', FACTS);
    const [summary, folded] = [body.indexOf('- **What happens next:**'), body.indexOf('<details>\n<summary>')];
    assert.ok(summary > 0 && folded > summary, 'the summary comes first');
    // GitHub and GitLab render Markdown inside <details> only after a blank line.
    assert.match(body, /<\/summary>\n\n```json\n[\s\S]*\n```\n\n<\/details>\n<!-- fixloop-digest: [0-9a-f]{64} -->$/);
  });

  test('K8: the summary is outside the digest: the same state with or without facts has the same JSON and reads back intact', () => {
    const plain = renderStateComment(WATCHING, 'k');
    const withFacts = renderStateComment(WATCHING, 'k', FACTS);
    assert.equal(jsonOf(withFacts), jsonOf(plain));
    assert.equal(plain.split('\n').at(-1), withFacts.split('\n').at(-1));
    assert.deepEqual(parseStateComment(withFacts, 'k'), parseStateComment(plain, 'k'));
    assert.equal(parseStateComment(withFacts, 'k')?.intact, true);
    const edited = withFacts.replace('**fixloop: CI is red**', '**fixloop: all good**');
    assert.notEqual(edited, withFacts);
    assert.equal(parseStateComment(edited, 'k')?.intact, true, 'editing the summary is not a state edit');
  });

  test('K8: a hand-edited JSON inside the toggle is still detected', () => {
    const body = renderStateComment(WATCHING, 'k', FACTS).replace('"status": "dispatched"', '"status": "acknowledged"');
    assert.equal(parseStateComment(body, 'k')?.intact, false);
  });

  const cases: Array<[string, LoopState, Partial<StateSummaryFacts>, RegExp, RegExp]> = [
    [
      'waiting for CI',
      WATCHING,
      { ciState: 'pending', failing: [] },
      /^waiting for CI on the current head$/,
      /When CI finishes: nothing more if it passes; if it fails, fixloop resumes the agent with the failure \(attempt 2 of 2\)\. Comment `\/fixloop off`/,
    ],
    [
      'an agent is working on it',
      WATCHING,
      { loopState: 'agent_running' },
      /^an agent is working on the failure$/,
      /^fixloop waits for the agent to push a fix, then for CI to judge it\./,
    ],
    [
      "waiting for CI on the agent's fix",
      WATCHING,
      { loopState: 'awaiting_progress' },
      /^waiting for CI on the agent's fix$/,
      /green ends the loop here; if it is red again, fixloop resumes the agent/,
    ],
    [
      'interrupted by a restart',
      WATCHING,
      { loopState: 'interrupted' },
      /^interrupted: a restart of fixloop stopped the agent's run$/,
      /offers the same attempt again, once and free/,
    ],
    [
      'CI is red',
      { ...WATCHING, attempts: STATE.attempts },
      {},
      /^CI is red on the current head$/,
      /no automatic attempt is left, so fixloop hands the pull request to a person/,
    ],
    [
      'CI is green',
      WATCHING,
      { ciState: 'passing', failing: [] },
      /^CI is green on the current head$/,
      /^Nothing while CI stays green; if it turns red, fixloop resumes the agent with the failure \(attempt 2 of 2\)/,
    ],
    [
      'off',
      WATCHING,
      { loopState: 'off' },
      /^off: a person turned the loop off for this pull request$/,
      /comment `\/fixloop on` to turn the loop back on/,
    ],
    [
      'off',
      WATCHING,
      { loopState: 'off', skipLabel: true },
      /^off: the `fixloop:skip` label is on$/,
      /remove `fixloop:skip` to let fixloop act again/,
    ],
    [
      'paused',
      WATCHING,
      { globalStop: true },
      /^paused: automation is stopped for every pull request$/,
      /until a person clears the global stop in fixloop \(`fixloop start`\)/,
    ],
    [
      'parked — a person decides',
      { ...STATE, parked: true },
      { loopState: 'parked' },
      /^parked: the loop stopped and no one answered in time$/,
      /will not resume on its own\. Fix it by hand, or unpark it in fixloop \(`fixloop unpark 12`\)/,
    ],
    [
      'stopped — a person decides',
      { ...STATE, grants: { used: 3, max: 3, left: 0 } },
      { loopState: 'needs_person' },
      /^stopped: the automatic fix budget is spent/,
      /No more attempts can be granted on this pull request \(3 of 3 grants of one more attempt used, none left\).*`PUT \/api\/tasks\/12\/budget`/,
    ],
  ];
  for (const [title, state, over, stateLine, nextLine] of cases)
    test(`K8: ${title} (${JSON.stringify(over)}): the headline, the state in words and what happens next`, () => {
      const body = renderStateComment(state, undefined, { ...FACTS, ...over });
      assert.equal(body.split('\n')[1], `**fixloop: ${title}**`);
      assert.match(line(body, 'State:')!.replace('- **State:** ', ''), stateLine);
      assert.match(line(body, 'What happens next:')!.replace('- **What happens next:** ', ''), nextLine);
      assert.match(
        line(body, 'Attempts:')!,
        new RegExp(`^- \\*\\*Attempts:\\*\\* ${state.attempts.length} of 2 automatic attempts used`),
      );
      assert.equal(
        line(body, 'Task page:'),
        '- **Task page:** [acme/app#7 in fixloop](https://fixloop.example.com/tasks/12)',
      );
    });

  test('V2: what failed names the current head and its checks; green says nothing failed; red without names says so', () => {
    assert.equal(
      line(renderStateComment(WATCHING, undefined, FACTS), 'What failed'),
      '- **What failed on `ffeeddccbbaa`:** `test (ubuntu)`, `lint`',
    );
    assert.equal(
      line(renderStateComment(WATCHING, undefined, { ...FACTS, ciState: 'passing', failing: [] }), 'What failed'),
      '- **What failed on `ffeeddccbbaa`:** nothing, CI is green',
    );
    assert.equal(
      line(renderStateComment(WATCHING, undefined, { ...FACTS, failing: [] }), 'What failed'),
      '- **What failed on `ffeeddccbbaa`:** CI is red; the failing checks are not known yet',
    );
    assert.equal(
      line(renderStateComment(WATCHING, undefined, { ...FACTS, ciState: 'pending', failing: [] }), 'What failed'),
      undefined,
    );
  });

  test('V2: many failing checks are shown five at a time, repeats once', () => {
    const failing = ['a', 'b', 'a', 'c', 'd', 'e', 'f', 'g'];
    assert.equal(
      line(renderStateComment(WATCHING, undefined, { ...FACTS, failing }), 'What failed'),
      '- **What failed on `ffeeddccbbaa`:** `a`, `b`, `c`, `d`, `e` and 2 more',
    );
  });

  test('K8: a check name from CI cannot break out of its code span, forge a marker, a JSON block or a mention', () => {
    const nasty = '`x`\n```json\n{"task": 99}\n```\n<!-- fixloop-digest: ' + '0'.repeat(64) + ' --> @everyone \u202e';
    const body = renderStateComment(WATCHING, 'k', { ...FACTS, failing: [nasty] });
    const failed = line(body, 'What failed')!;
    assert.equal(failed.split('`').length, 5, 'two code spans only: the head and the name');
    assert.ok(!/[<>\u202e]/.test(failed));
    assert.equal(body.match(/```json/g)?.length, 1);
    assert.equal(body.match(/<!-- fixloop-digest/g)?.length, 1);
    assert.equal(parseStateComment(body, 'k')?.intact, true);
    assert.equal(parseStateComment(body, 'k')?.state?.taskId, 12);
  });

  test('issue 34: on GitLab the note speaks of the merge request and its pipeline, written group/project!iid', () => {
    const onGitlab = { ...FACTS, words: GITLAB_WORDS };
    const red = renderStateComment({ ...WATCHING, attempts: STATE.attempts }, undefined, { ...onGitlab, failing: [] });
    assert.equal(red.split('\n')[1], '**fixloop: The pipeline is red**');
    assert.equal(line(red, 'State:'), '- **State:** The pipeline is red on the current head');
    assert.equal(
      line(red, 'What failed'),
      '- **What failed on `ffeeddccbbaa`:** The pipeline is red; the failing jobs are not known yet',
    );
    assert.match(line(red, 'What happens next:')!, /fixloop hands the merge request to a person/);
    assert.match(line(red, 'What happens next:')!, /to stop the loop for this merge request\.$/);
    assert.equal(
      line(red, 'Task page:'),
      '- **Task page:** [acme/app!7 in fixloop](https://fixloop.example.com/tasks/12)',
    );
    const waiting = renderStateComment(WATCHING, undefined, { ...onGitlab, loopState: 'awaiting_progress' });
    assert.equal(line(waiting, 'State:'), "- **State:** waiting for the pipeline on the agent's fix");
    assert.match(
      line(waiting, 'What happens next:')!,
      /^- \*\*What happens next:\*\* When the pipeline has judged the fix/,
    );
    for (const body of [red, waiting]) {
      const summary = summaryOf(body);
      assert.doesNotMatch(summary, /pull request|acme\/app#7|\bCI\b/, summary);
    }
    // The machine-readable state is the same on every host: the JSON a tool reads back is unchanged.
    assert.equal(
      jsonOf(waiting),
      jsonOf(renderStateComment(WATCHING, undefined, { ...FACTS, loopState: 'awaiting_progress' })),
    );
  });

  test('K8: without a public URL there is no Task page line', () => {
    assert.equal(line(renderStateComment(WATCHING, undefined, { ...FACTS, taskUrl: null }), 'Task page'), undefined);
  });
});
