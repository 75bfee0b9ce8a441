// The `mention` runner of the config file (issue 35 item 2): which agent is mentioned on the pull
// request, by which handle, and as whom — fixloop's own identity, or a person's token
// (FIXLOOP_MENTION_TOKEN[_FILE]) for the agents that ignore bots.
import { z } from 'zod';
import { MENTION_AGENTS, type MentionAgent } from '../core/mention-comment.js';

export const MENTION_IDENTITIES = ['app', 'user'] as const;
export type MentionIdentity = (typeof MENTION_IDENTITIES)[number];

/**
 * Who each agent answers by default: Copilot's cloud agent and Codex cloud act only on a mention from a
 * person with write access; claude-code-action takes a bot's mention once the bot is in its `allowed_bots`.
 */
export const MENTION_DEFAULT_IDENTITY: Record<MentionAgent, MentionIdentity> = {
  copilot: 'user',
  codex: 'user',
  claude: 'app',
  // A Duo flow's mention trigger refuses a mention from a bot or another service account.
  duo: 'user',
};

export const mentionRunnerSchema = z
  .strictObject({
    kind: z.literal('mention'),
    /** The agent mentioned; it decides the default handle and identity. */
    agent: z.enum(MENTION_AGENTS),
    /** The handle, e.g. `@copilot` or a team's own `@acme-claude`; default the agent's own. */
    trigger: z
      .string()
      .regex(/^@[A-Za-z0-9](?:[A-Za-z0-9-]|\/(?=[A-Za-z0-9]))*(?:\[bot\])?$/, 'must be one @handle, e.g. "@copilot"')
      .optional(),
    /** Whose comment it is: `app` (fixloop's own credentials) or `user` (FIXLOOP_MENTION_TOKEN on GitHub, FIXLOOP_GITLAB_MENTION_TOKEN on GitLab). */
    as: z.enum(MENTION_IDENTITIES).optional(),
    /**
     * Approve the workflow runs of the agent's push that wait for approval (GitHub holds a Copilot
     * push's runs until someone does). Off by default: approving runs code with the repository's secrets.
     */
    approveWorkflows: z.boolean().optional(),
    /** How often the pull request's events are read for the agent's own finish (Copilot's work events). */
    pollSeconds: z.number().positive().max(3600).optional(),
  })
  .superRefine((r, ctx) => {
    if (r.agent === 'duo' && r.trigger === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['trigger'],
        message:
          'agent duo needs `trigger`, the @handle of the service account of the Duo flow your project\'s mention trigger runs (e.g. "@duo-developer-acme")',
      });
  });
