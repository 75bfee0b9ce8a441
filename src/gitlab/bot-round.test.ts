// A review bot's round on GitLab (issue 36 item 6, decision 0077): which notes of a merge request's
// discussions are the bot's findings now (its notes in unresolved threads, its newest top-level note),
// that the same findings on moved lines and another head fingerprint alike while a resolved or new
// finding does not, and the adapter's read of GitLab's Discussions API through the fake GitLab — all
// pages within the bound, a list past the bound or a refusal an error (so nothing is compared).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProviderError, type ProviderPort } from '../app/provider-port.js';
import { findingsFingerprint } from '../core/bot-findings.js';
import { startFakeGitLab, type FakeGitLab } from '../../test/support/fake-gitlab/server.js';
import { botRoundOf, type DiscussionJson, type DiscussionNoteJson } from './bot-round.js';
import { createGitLab } from './client.js';

const BOT = { id: 501, username: 'coderabbit' };
const DORA = { id: 502, username: 'dev-dora' };

let nextNote = 1;
const note = (author: { id: number; username: string }, body: string, o: Partial<DiscussionNoteJson> = {}) => ({
  id: nextNote++,
  body,
  author,
  system: false,
  ...o,
});
/** A diff thread on `file`, resolved or not, its notes in order. */
const thread = (file: string, resolved: boolean, ...notes: DiscussionNoteJson[]): DiscussionJson => ({
  id: `t${nextNote}`,
  individual_note: false,
  notes: notes.map((n) => ({
    ...n,
    resolvable: true,
    resolved,
    position: { new_path: file, old_path: file },
  })),
});
const single = (n: DiscussionNoteJson): DiscussionJson => ({ id: `s${n.id}`, individual_note: true, notes: [n] });
const fingerprint = (d: DiscussionJson[]) => findingsFingerprint({ body: '', comments: botRoundOf(d, BOT.id) }); // GitLab sends no review text (decision 0079)

describe("a review bot's round on GitLab (decision 0077)", () => {
  it("takes the bot's notes in unresolved threads, under the thread's file, and its newest top-level note", () => {
    const round = botRoundOf(
      [
        single(note(BOT, 'Summary of round 1')),
        thread('src/cart.ts', false, note(BOT, 'Potential null dereference (line 42).')),
        thread('src/price.ts', false, note(DORA, 'Is this rounded?'), note(BOT, 'It is not; see src/price.ts:10.')),
        thread('src/tax.ts', true, note(BOT, 'Tax is applied twice.')),
        single(note(DORA, 'Thanks, looking.')),
        single(note(BOT, 'added 1 commit', { system: true })),
        single(note(BOT, 'Summary of round 2')),
      ],
      BOT.id,
    );
    assert.deepEqual(round, [
      { path: 'src/cart.ts', body: 'Potential null dereference (line 42).' },
      { path: 'src/price.ts', body: 'It is not; see src/price.ts:10.' },
      { path: '', body: 'Summary of round 2' },
    ]);
  });

  it('a thread on the merge request as a whole (no position) counts under no file; a deleted file under its old path', () => {
    const general: DiscussionJson = {
      id: 'g',
      individual_note: false,
      notes: [note(BOT, 'The PR description is stale.', { resolvable: true, resolved: false })],
    };
    const deleted = thread('src/old.ts', false, note(BOT, 'Still imported elsewhere.'));
    deleted.notes![0]!.position = { new_path: null, old_path: 'src/old.ts' };
    assert.deepEqual(botRoundOf([general, deleted], BOT.id), [
      { path: '', body: 'The PR description is stale.' },
      { path: 'src/old.ts', body: 'Still imported elsewhere.' },
    ]);
  });

  it('a reviewer who says nothing has an empty round; a deleted author or a null list is nobody', () => {
    assert.deepEqual(
      botRoundOf([single(note(DORA, 'hi')), { id: 'x', individual_note: true, notes: null }], BOT.id),
      [],
    );
    assert.deepEqual(
      botRoundOf([{ id: 'y', individual_note: true, notes: [{ ...note(BOT, 'x'), author: null }] }], BOT.id),
      [],
    );
  });

  it('the same findings on moved lines, another head and in another order fingerprint alike', () => {
    const first = fingerprint([
      single(note(BOT, 'Reviewed abc1234..def5678: 2 actionable comments.')),
      thread('src/cart.ts', false, note(BOT, 'Potential null dereference (line 42).')),
      thread('src/price.ts', false, note(BOT, '`total` is never rounded; see src/price.ts:10.')),
    ]);
    const repeat = fingerprint([
      thread('src/price.ts', false, note(BOT, '`total` is never rounded; see src/price.ts:31.')),
      thread('src/cart.ts', false, note(BOT, 'Potential null dereference (line 57).')),
      single(note(BOT, 'Reviewed 9f8e7d6..0a1b2c3: 2 actionable comments.')),
    ]);
    assert.equal(repeat, first);
    // A bot that opens the same finding again beside its still-open thread says nothing new.
    const again = fingerprint([
      single(note(BOT, 'Reviewed 9f8e7d6..0a1b2c3: 2 actionable comments.')),
      thread('src/cart.ts', false, note(BOT, 'Potential null dereference (line 42).')),
      thread('src/cart.ts', false, note(BOT, 'Potential null dereference (line 57).')),
      thread('src/price.ts', false, note(BOT, '`total` is never rounded; see src/price.ts:31.')),
    ]);
    assert.equal(again, first);
  });

  it('a finding resolved, or a new one, fingerprints differently', () => {
    const open = [
      single(note(BOT, 'Summary')),
      thread('src/cart.ts', false, note(BOT, 'Potential null dereference.')),
      thread('src/price.ts', false, note(BOT, 'Never rounded.')),
    ];
    const before = fingerprint(open);
    const fixed = fingerprint([
      single(note(BOT, 'Summary')),
      thread('src/cart.ts', true, note(BOT, 'Potential null dereference.')),
      thread('src/price.ts', false, note(BOT, 'Never rounded.')),
    ]);
    const added = fingerprint([...open, thread('src/tax.ts', false, note(BOT, 'Tax is applied twice.'))]);
    assert.notEqual(fixed, before);
    assert.notEqual(added, before);
    assert.notEqual(added, fixed);
  });

  it("another reviewer's threads are not the bot's round", () => {
    const base = [thread('src/cart.ts', false, note(BOT, 'Potential null dereference.'))];
    assert.equal(fingerprint([...base, thread('src/ui.ts', false, note(DORA, 'Rename this.'))]), fingerprint(base));
  });
});

describe('reviewComments: the adapter reads the merge request discussions (fake GitLab)', () => {
  const P = 'group/app';
  let fake: FakeGitLab;
  let gitlab: ProviderPort;
  let botId: number;

  before(async () => {
    fake = await startFakeGitLab();
    const token = fake.addToken('fixloop-bot');
    fake.addProject(P);
    fake.addToken('coderabbit');
    botId = Object.values(fake.state.users).find((u) => u.username === 'coderabbit')!.id;
    gitlab = createGitLab({ url: fake.url, token, retry: { backoffUnitMs: 1, maxWaitSeconds: 1, retries: 0 } });
  });
  after(() => fake.close());

  it("reads the bot's open diff threads, replies and newest summary, not resolved threads nor others' notes", async () => {
    fake.addMergeRequest(P, 3, { headSha: 'a'.repeat(40) });
    fake.addNote(P, 3, { body: 'Walkthrough, round 1', author: 'coderabbit' });
    const nullCheck = fake.addNote(P, 3, {
      body: 'Potential null dereference.',
      author: 'coderabbit',
      thread: { file: 'src/cart.ts', line: 42 },
    });
    fake.addNote(P, 3, { body: 'Agreed', author: 'dev-dora', thread: { replyTo: nullCheck.discussionId } });
    fake.addNote(P, 3, { body: 'Still there.', author: 'coderabbit', thread: { replyTo: nullCheck.discussionId } });
    const tax = fake.addNote(P, 3, {
      body: 'Tax is applied twice.',
      author: 'coderabbit',
      thread: { file: 'src/tax.ts', line: 3 },
    });
    fake.resolveThread(P, 3, tax.discussionId, { by: 'dev-dora' });
    fake.addNote(P, 3, { body: 'Please look at the docs.', author: 'dev-dora', thread: {} });
    fake.addNote(P, 3, { body: 'added 1 commit', author: 'coderabbit', system: true });
    fake.addNote(P, 3, { body: 'Walkthrough, round 2', author: 'coderabbit' });

    const round = await gitlab.reviewComments!(P, 3, botId);
    assert.deepEqual(round, [
      { path: 'src/cart.ts', body: 'Potential null dereference.' },
      { path: 'src/cart.ts', body: 'Still there.' },
      { path: '', body: 'Walkthrough, round 2' },
    ]);
    const asked = fake.requests.filter((r) => r.path.includes('/merge_requests/3/discussions'));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.path, /per_page=100/);
  });

  it('follows the pages of a long discussion list, up to 500 threads', async () => {
    fake.addMergeRequest(P, 4, { headSha: 'b'.repeat(40) });
    for (let i = 0; i < 230; i++)
      fake.addNote(P, 4, { body: `finding ${i}`, author: 'coderabbit', thread: { file: `src/f${i}.ts`, line: 1 } });
    const before = fake.requests.length;
    const round = await gitlab.reviewComments!(P, 4, botId);
    assert.equal(round.length, 230);
    assert.equal(fake.requests.slice(before).filter((r) => r.path.includes('/discussions')).length, 3);
  });

  it('a list past 500 threads is an error, not a round fingerprinted on its first part', async () => {
    fake.addMergeRequest(P, 5, { headSha: 'c'.repeat(40) });
    for (let i = 0; i < 501; i++) fake.addNote(P, 5, { body: `n ${i}`, author: 'dev-dora' });
    const err = await gitlab.reviewComments!(P, 5, botId).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ProviderError, String(err));
    assert.match(err.message, /more than 500 threads/);
  });

  it('a refused read is a ProviderError (the gate then compares nothing)', async () => {
    fake.addMergeRequest(P, 6, { headSha: 'd'.repeat(40) });
    fake.failNext(/^GET \/api\/v4\/projects\/.+\/merge_requests\/6\/discussions/, [403]);
    const err = await gitlab.reviewComments!(P, 6, botId).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.status, 403);
    assert.equal(err.provider, 'gitlab');
  });
});
