// What a notice sink is sent (SPEC G1, P4): a Slack incoming-webhook message for people, and the
// JSON body of a signed webhook for machines. Pure: the notice and where its change lives in, the
// body out; the sink adapters (src/sinks/) only POST it. The link is the change's on its own host,
// written and linked as that host does (change-link.ts, the dashboard's one copy; issues 31, 34).
import { changeRef, type ChangeLinks } from './change-link.js';
import { STOP_WHY } from './notice.js';
import type { Notice } from './types.js';

/** The change's page on its host's web address. */
export function pullRequestUrl(links: ChangeLinks, n: Pick<Notice, 'repository' | 'pullRequest'>): string {
  return changeRef(links, n.repository, n.pullRequest).url;
}

/** Slack's own escaping for text in mrkdwn: only these three are special. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface SlackMessage {
  text: string;
  blocks: Array<Record<string, unknown>>;
}

/** `text` is the fallback (notifications, screen readers); the blocks say the same, with the link. */
export function slackMessage(n: Notice, links: ChangeLinks): SlackMessage {
  // The change as its host writes it: `owner/repo#7`, `group/project!7`, ….
  const { label: pr, url } = changeRef(links, n.repository, n.pullRequest);
  const why = STOP_WHY[n.reason];
  const head = n.headSha ? n.headSha.slice(0, 12) : 'unknown';
  return {
    text: `fixloop stopped for ${pr}: ${why}. ${url}`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `*fixloop stopped for <${url}|${slackEscape(pr)}>*\n${slackEscape(n.message)}`,
        },
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: slackEscape(`reason: ${n.reason} · attempts used: ${n.attemptsUsed} · last head: ${head}`),
          },
        ],
      },
    ],
  };
}

/** The signed webhook's body: the notice's fields, its reason in words, and the link. */
export function webhookBody(n: Notice, links: ChangeLinks): Record<string, unknown> {
  return {
    event: 'notice.filed',
    notice: {
      id: n.id,
      taskId: n.taskId,
      repository: n.repository,
      pullRequest: n.pullRequest,
      pullRequestUrl: pullRequestUrl(links, n),
      reason: n.reason,
      why: STOP_WHY[n.reason],
      headSha: n.headSha,
      attemptsUsed: n.attemptsUsed,
      message: n.message,
      createdAt: n.createdAt,
    },
  };
}

/** The key a receiver dedupes on: the same for every try of one notice to one sink (at-least-once). */
export function idempotencyKey(noticeId: number, sink: string): string {
  return `notice-${noticeId}-${sink}`;
}
