// Issue 35 (decision 0074): Copilot's work events on a pull request — `copilot_work_started`,
// `copilot_work_finished`, `copilot_work_finished_failure` — which GitHub records as issue events of
// the pull request, read with GET /repos/{owner}/{repo}/issues/{number}/events on fixloop's own
// credentials. Bounded: at most MAX_PAGES pages of 100 events, the newest pages being the last.
import { randomUUID } from 'node:crypto';
import type { AgentWorkEvent } from '../core/agent-finish.js';
import { createClientRouter, type GitHubAuth } from './installations.js';
import { silentGitHubLog, type GitHubLog } from './octokit.js';
import { toProviderError } from './errors.js';

const MAX_PAGES = 10;

export interface CopilotWorkReader {
  /** The pull request's Copilot work events, oldest first. */
  events(repository: string, pullRequest: number): Promise<AgentWorkEvent[]>;
}

export function createCopilotWorkReader(opts: {
  apiUrl: string;
  auth: GitHubAuth;
  log?: GitHubLog;
  retry?: { retries?: number; backoffUnitMs?: number };
}): CopilotWorkReader {
  const router = createClientRouter(opts.auth, {
    baseUrl: opts.apiUrl.replace(/\/+$/, ''),
    throttleId: `fixloop-copilot-work-${randomUUID()}`,
    rateLimitRetries: 2,
    maxRateLimitWaitSeconds: 60,
    retries: opts.retry?.retries ?? 2,
    backoffUnitMs: opts.retry?.backoffUnitMs ?? 1000,
    spaceWrites: false,
    log: opts.log ?? silentGitHubLog,
    observer: { response: () => undefined },
  });
  return {
    async events(repository, pullRequest) {
      const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repository);
      if (!m) throw new TypeError(`not an owner/name repository: ${JSON.stringify(repository)}`);
      const [owner, repo] = [m[1]!, m[2]!];
      try {
        const gh = await router.forRepository(owner, repo);
        const found: AgentWorkEvent[] = [];
        for (let page = 1; page <= MAX_PAGES; page++) {
          const { data } = await gh.rest.issues.listEvents({
            owner,
            repo,
            issue_number: pullRequest,
            per_page: 100,
            page,
          });
          for (const e of data as { event?: unknown; created_at?: unknown }[])
            if (typeof e.event === 'string' && e.event.startsWith('copilot_work_') && typeof e.created_at === 'string')
              found.push({ event: e.event, createdAt: e.created_at });
          if (data.length < 100) break;
        }
        return found;
      } catch (err) {
        throw toProviderError(err, `GET issue events ${owner}/${repo}#${pullRequest}`);
      }
    },
  };
}
