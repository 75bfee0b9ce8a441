// Convergence for bot reviews (issue 36 item 6): an allow-listed review bot (CodeRabbit, Copilot
// review) rings the loop once per round; a round whose findings repeat a round the agent already
// answered means the answer changed nothing the bot cares about, so it stops the loop for that bot
// with a notice, as the unchanged-failure rule does for CI (C5). Pure: findings in, a fingerprint and
// a verdict out; the fingerprints are kept on the rejection rows (decision 0070).
import { createHash } from 'node:crypto';

/** One round of a bot's review: its body and its inline comments (path and text). */
export interface BotRound {
  body: string;
  comments: ReadonlyArray<{ path: string; body: string }>;
}

/**
 * A finding's text with what changes from round to round without the finding changing taken out:
 * line numbers and ranges, commit SHAs (a bot names the head it reviewed), hidden HTML markers (ids
 * a bot embeds per review), and white space. So the same findings on a rebased diff still match.
 */
export function normalizeFindingText(text: string): string {
  return text
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/#L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?/gi, ' ') // links to lines: #L12-L14
    .replace(/\b(?:lines?|ll?\.?)\s*\d+(?:\s*(?:-|–|to|and)\s*\d+)?/gi, ' ') // line 12, lines 10-14, L12
    .replace(/:\d+(?::\d+)?\b/g, ' ') // path:12 or path:12:3
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/gi, ' ') // commit SHAs, short or full
    .replace(/\s+/g, ' ')
    .trim();
}

/** The round's findings as one fingerprint: body and inline comments normalised, comments in any order. */
export function findingsFingerprint(round: BotRound): string {
  const comments = round.comments
    .map((c) => `${c.path.trim()}\u0000${normalizeFindingText(c.body)}`)
    .filter((c, i, all) => all.indexOf(c) === i)
    .sort();
  return createHash('sha256')
    .update(JSON.stringify([normalizeFindingText(round.body), comments]))
    .digest('hex')
    .slice(0, 32);
}

/** An earlier round of the same bot on the Task: its fingerprint, and whether an attempt answered it. */
export interface EarlierRound {
  fingerprint: string;
  answered: boolean;
}

export type BotRoundVerdict = { kind: 'new' } | { kind: 'repeat'; detail: string };

/**
 * A round repeats when an earlier round of the same bot that the agent already answered had the same
 * findings. A repeat of a round not answered yet is a bot saying it twice, which the agent has not
 * seen: it is new. `bot` names the bot in the words for people.
 */
export function botRoundVerdict(bot: string, earlier: readonly EarlierRound[], fingerprint: string): BotRoundVerdict {
  const index = earlier.findIndex((r) => r.answered && r.fingerprint === fingerprint);
  if (index === -1) return { kind: 'new' };
  return {
    kind: 'repeat',
    detail: `${bot}'s review (round ${earlier.length + 1}) repeats the findings of its round ${index + 1}, which the agent already answered`,
  };
}
