// What a notice sink is sent (SPEC G1, P4): a Slack incoming-webhook message for people, and the
// JSON body of a signed webhook for machines. Pure: the notice and the pull request's web address in,
// the body out; the sink adapters (src/sinks/) only POST it.
import { STOP_WHY } from './notice.js';
import type { Notice } from './types.js';

/** The pull request on GitHub's web host (`webUrl` is https://github.com or the GHE origin). */
export function pullRequestUrl(webUrl: string, n: Pick<Notice, 'repository' | 'pullRequest'>): string {
  return `${webUrl.replace(/\/+$/, '')}/${n.repository}/pull/${n.pullRequest}`;
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
export function slackMessage(n: Notice, webUrl: string): SlackMessage {
  const pr = `${n.repository}#${n.pullRequest}`;
  const url = pullRequestUrl(webUrl, n);
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
export function webhookBody(n: Notice, webUrl: string): Record<string, unknown> {
  return {
    event: 'notice.filed',
    notice: {
      id: n.id,
      taskId: n.taskId,
      repository: n.repository,
      pullRequest: n.pullRequest,
      pullRequestUrl: pullRequestUrl(webUrl, n),
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
