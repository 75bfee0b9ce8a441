// What a notice sink is sent of a red base (decision 0075; SPEC G1, P4): a Slack message for people and
// the JSON body of a signed webhook, for the round opening (the base fails what its pull requests
// fail) and for its healing. Pure: the round, the event and where changes live in, the body out.
import { changeRef, type ChangeLinks } from './change-link.js';

/** The round as a sink is told of it (app/base-red-port.ts's BaseRed, the fields said). */
export interface BaseRedFacts {
  id: number;
  repository: string;
  baseRef: string;
  round: number;
  checks: readonly string[];
  baseSha: string | null;
  issueNumber: number | null;
  openedAt: string;
  closedAt: string | null;
  pullRequests: readonly number[];
}

export type BaseRedSinkEvent = 'opened' | 'healed';

/** The webhook's `event` (and `X-Fixloop-Event`) for each. */
export const BASE_RED_EVENTS: Record<BaseRedSinkEvent, string> = {
  opened: 'base_red.opened',
  healed: 'base_red.healed',
};

/** Slack's own escaping for text in mrkdwn: only these three are special. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The held pull requests (merge requests), each its label and page. */
function held(links: ChangeLinks, red: BaseRedFacts) {
  return red.pullRequests.map((n) => changeRef(links, red.repository, n));
}

export function slackBaseRedMessage(
  event: BaseRedSinkEvent,
  red: BaseRedFacts,
  message: string,
  links: ChangeLinks,
): { text: string; blocks: Array<Record<string, unknown>> } {
  const where = `${red.baseRef} of ${red.repository}`;
  const title = event === 'opened' ? `fixloop: ${where} is failing` : `fixloop: ${where} passes again`;
  const pulls = held(links, red);
  const heldText =
    pulls.length === 0 ? '' : `held: ${pulls.map((p) => `<${p.url}|${slackEscape(p.label)}>`).join(', ')}`;
  const commit = red.baseSha ? `commit ${red.baseSha.slice(0, 12)}` : 'commit unknown';
  return {
    text: `${title}. ${message}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${slackEscape(title)}*\n${slackEscape(message)}` } },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: [slackEscape(`checks: ${red.checks.join(', ')} · ${commit}`), heldText].filter(Boolean).join(' · '),
          },
        ],
      },
    ],
  };
}

export function webhookBaseRedBody(
  event: BaseRedSinkEvent,
  red: BaseRedFacts,
  message: string,
  links: ChangeLinks,
): Record<string, unknown> {
  return {
    event: BASE_RED_EVENTS[event],
    baseRed: {
      id: red.id,
      repository: red.repository,
      baseRef: red.baseRef,
      round: red.round,
      checks: [...red.checks],
      baseSha: red.baseSha,
      issueNumber: red.issueNumber,
      openedAt: red.openedAt,
      closedAt: red.closedAt,
      pullRequests: held(links, red).map((p, i) => ({ number: red.pullRequests[i], url: p.url })),
      message,
    },
  };
}

/** The key a receiver dedupes on: the same for every try of one event of one round to one sink. */
export function baseRedIdempotencyKey(redId: number, event: BaseRedSinkEvent, sink: string): string {
  return `base-red-${redId}-${event}-${sink}`;
}
