// A fake of Copilot's cloud agent as its documentation describes it answering on a pull request (issue
// 35): it acts on a comment that mentions `@copilot` only when a person with write access wrote it —
// a bot's mention, or a reader's, is ignored — and it answers by pushing a commit to the pull
// request's branch (the fake GitHub's head moves and GitHub's `pull_request` `synchronize` webhook is
// sent). It never calls fixloop. Where the repository makes a Copilot push's workflows wait for
// approval (GitHub's default), `runsNeedApproval` holds the push's run and sends its `workflow_run`
// completed with `action_required`, as GitHub does until someone approves it. While it works GitHub
// records its work events on the pull request (decision 0074): `copilot_work_started` when it takes the
// mention, `copilot_work_finished` when it ends — after its push, or without one (`outcome`) — or
// `copilot_work_finished_failure` when its session fails.
import type { FakeGitHub } from '../fake-github/server.js';
import { recordCopilotWork } from '../fake-github/copilot-events.js';
import { delivery, post, pullRequestPayload, workflowRunPayload, type RepoSpec } from '../deliveries.js';

const WRITERS = new Set(['write', 'maintain', 'admin']);

export interface CopilotAnswer {
  /** The comment it read, and whether it acted on it. */
  mention: { author: string | undefined; authorType: string | undefined; body: string } | null;
  acted: boolean;
}

/** Reads the newest `@copilot` mention on the pull request and, when Copilot would, pushes `newHead`. */
export async function copilotAnswers(
  fake: FakeGitHub,
  o: {
    repo: RepoSpec;
    pullRequest: number;
    newHead: string;
    fixloopUrl: string;
    webhookSecret: string;
    runsNeedApproval?: boolean;
    /** How its session ends: with a push (the default), finished without one, or failed without one. */
    outcome?: 'pushed' | 'finished_without_push' | 'failed';
  },
): Promise<CopilotAnswer> {
  const full = `${o.repo.owner}/${o.repo.name}`;
  const comments = fake.state.comments[`${full}#${o.pullRequest}`] ?? [];
  const mention = [...comments].reverse().find((c) => /(^|\s)@copilot\b/.test(c.body)) ?? null;
  if (!mention) return { mention: null, acted: false };
  const role = mention.author
    ? fake.state.collaborators[full.toLowerCase()]?.[mention.author.toLowerCase()]
    : undefined;
  const acts = mention.authorType === 'User' && role !== undefined && WRITERS.has(role);
  const seen = { author: mention.author, authorType: mention.authorType, body: mention.body };
  if (!acts) return { mention: seen, acted: false };
  recordCopilotWork(fake.state, full, o.pullRequest, 'copilot_work_started');
  if (o.outcome === 'finished_without_push' || o.outcome === 'failed') {
    const end = o.outcome === 'failed' ? 'copilot_work_finished_failure' : 'copilot_work_finished';
    recordCopilotWork(fake.state, full, o.pullRequest, end);
    return { mention: seen, acted: true };
  }
  fake.setHead(full, o.pullRequest, o.newHead);
  const d = delivery(
    'pull_request',
    pullRequestPayload({
      repo: o.repo,
      number: o.pullRequest,
      action: 'synchronize',
      headSha: o.newHead,
      branch: `agent/fix-${o.pullRequest}`,
    }),
  );
  const answer = await post(o.fixloopUrl, d, o.webhookSecret);
  if (answer.status !== 202) throw new Error(`the push's webhook was not taken: ${answer.status}`);
  if (o.runsNeedApproval) {
    const run = fake.holdRunForApproval(full, o.newHead, 'ci.yml');
    const held = delivery(
      'workflow_run',
      workflowRunPayload({
        repo: o.repo,
        sha: o.newHead,
        id: run.id,
        conclusion: 'action_required',
        pr: { number: o.pullRequest, headSha: o.newHead },
      }),
    );
    const told = await post(o.fixloopUrl, held, o.webhookSecret);
    if (told.status !== 202) throw new Error(`the held run's webhook was not taken: ${told.status}`);
  }
  recordCopilotWork(fake.state, full, o.pullRequest, 'copilot_work_finished');
  return { mention: seen, acted: true };
}
