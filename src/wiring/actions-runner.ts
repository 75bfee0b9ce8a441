// Issue 35 items 3 and 6: the actions runner and the OIDC exchange it relies on, wired. For a repository
// on GitHub the runner dispatches and reads workflow runs on fixloop's own GitHub credentials (App or
// token); for a gitlab Work's project it starts and reads pipelines on GITLAB_TOKEN (scope `api`). Each
// run's workflow run id (bare, as ever) or pipeline id (`gitlab-pipeline:<id>`) is recorded in the
// ledger, so the two can never be taken for each other. The exchange checks a token with jose against
// the issuer its `iss` names — GitHub Actions' or the GitLab instance — and binds it to that record.
import type { Config } from '../config/config.js';
import type { ActionsRunnerConfig } from '../config/runner-config.js';
import { ConfigError } from '../config/errors.js';
import type { Clock, Logger, Random } from '../app/ports.js';
import type { Ledger } from '../app/ledger-port.js';
import type { Dispatcher } from '../app/dispatch.js';
import { createWorkflowTokenExchange, type ExchangeWorkflowToken } from '../app/exchange-workflow-token.js';
import { createActionsRunner, type ActionsRunner, type WorkflowHost } from '../runners/actions.js';
import { createWorkflowCalls, type WorkflowCalls } from '../github/workflows.js';
import { githubAuthOf } from './github-auth.js';
import { ACTIONS_WORKFLOWS_DIR, createActionsOidcVerifier } from '../github/actions-oidc.js';
import { createPipelineCalls, pipelineIdOfRef, PIPELINE_REF_PREFIX, type PipelineCalls } from '../gitlab/pipelines.js';
import { createGitLabIdTokenVerifier, GITLAB_ID_TOKEN_CLAIMS } from '../gitlab/ci-id-token.js';
import { providerOfRepository } from './provider-of-repository.js';

/** GitHub Actions' claims for the repository, the workflow run and the workflow file. */
const ACTIONS_CLAIMS = { repository: 'repository', run: 'run_id', workflowRef: 'workflow_ref' } as const;

export function actionsRunnerFrom(
  r: ActionsRunnerConfig,
  config: Pick<Config, 'github' | 'gitlab' | 'works'>,
  deps: { ledger: Pick<Ledger, 'setRunExternalRef' | 'runExternalRef' | 'getRun' | 'getTask'>; logger: Logger },
): ActionsRunner {
  const providerOf = providerOfRepository(config.works);
  // A repository no Work names is GitHub's: with no Works, or any Work not on GitLab, GitHub is needed.
  const needsGitHub = config.works.length === 0 || config.works.some((w) => w.provider !== 'gitlab');
  const needsGitLab = config.works.some((w) => w.provider === 'gitlab');
  const auth = githubAuthOf(config.github);
  if (needsGitHub && auth === null)
    throw ConfigError.at(
      'environment',
      ['runner', 'kind'],
      'the actions runner dispatches workflows on GitHub: set GITHUB_TOKEN, or APP_ID with PRIVATE_KEY (an App needs actions: write)',
    );
  if (needsGitLab && !config.gitlab.token)
    throw ConfigError.at(
      'environment',
      ['runner', 'kind'],
      "the actions runner starts pipelines on a gitlab Work's projects: set GITLAB_TOKEN (scope api, at least Developer on each project)",
    );
  const github = auth === null ? null : createWorkflowCalls({ apiUrl: config.github.apiUrl, auth, log: deps.logger });
  const gitlab = config.gitlab.token
    ? createPipelineCalls({ url: config.gitlab.url, token: config.gitlab.token, log: deps.logger })
    : null;
  return createActionsRunner({
    workflow: r.workflow ?? '',
    pollMs: r.pollMs,
    host: ciHost({ workflow: r.workflow ?? '', providerOf, github, gitlab }),
    record: (runId, workflowRunId) => deps.ledger.setRunExternalRef(runId, workflowRunId),
    async recorded(runId) {
      const workflowRunId = await deps.ledger.runExternalRef(runId);
      const run = workflowRunId === null ? null : await deps.ledger.getRun(runId);
      const task = run ? await deps.ledger.getTask(run.taskId) : null;
      return workflowRunId !== null && task ? { repository: task.repository, workflowRunId } : null;
    },
    logger: deps.logger,
  });
}

/**
 * One WorkflowHost over both CIs: a dispatch goes to the CI of the repository's host; a read goes by
 * what was recorded (a pipeline's prefixed id, or a workflow run's bare one), so a run is followed
 * where it was started.
 */
export function ciHost(o: {
  workflow: string;
  providerOf: (repository: string) => 'github' | 'gitlab';
  github: Pick<WorkflowCalls, 'dispatch' | 'readRun' | 'cancelRun'> | null;
  gitlab: PipelineCalls | null;
}): WorkflowHost {
  const githubCalls = () => {
    if (o.github === null) throw new Error('no GitHub credentials: set GITHUB_TOKEN, or APP_ID with PRIVATE_KEY');
    return o.github;
  };
  const gitlabCalls = () => {
    if (o.gitlab === null) throw new Error('no GitLab token: set GITLAB_TOKEN (scope api)');
    return o.gitlab;
  };
  return {
    dispatch: (repository, workflow, ref, inputs) =>
      o.providerOf(repository) === 'gitlab'
        ? gitlabCalls().start(repository, ref, inputs)
        : githubCalls().dispatch(repository, workflow, ref, inputs),
    readRun: (repository, recorded) =>
      pipelineIdOfRef(recorded) !== null
        ? gitlabCalls().read(repository, recorded)
        : githubCalls().readRun(repository, recorded),
    cancel: (repository, recorded) =>
      pipelineIdOfRef(recorded) !== null
        ? gitlabCalls().cancel(repository, recorded)
        : githubCalls().cancelRun(repository, recorded),
    words(repository, recorded) {
      const pipeline = recorded === null ? null : pipelineIdOfRef(recorded);
      const onGitLab = recorded === null ? o.providerOf(repository) === 'gitlab' : pipeline !== null;
      return onGitLab
        ? { start: 'a pipeline', run: `pipeline ${pipeline ?? ''}` }
        : { start: `the workflow ${o.workflow}`, run: `workflow run ${recorded ?? ''}` };
    },
  };
}

export function workflowTokenExchangeFrom(
  r: ActionsRunnerConfig,
  deps: {
    agentUrl: string;
    ledger: Pick<Ledger, 'unfinishedRunByExternalRef' | 'replaceRunToken'>;
    random: Random;
    clock: Clock;
    logger: Logger;
  },
): ExchangeWorkflowToken {
  const now = () => deps.clock.now();
  return createWorkflowTokenExchange({
    issuers: [
      // With no workflow (every Work on GitLab) fixloop dispatches nothing on GitHub, so it takes no GitHub token.
      ...(r.workflow === null
        ? []
        : [
            {
              issuer: r.oidcIssuer,
              verify: createActionsOidcVerifier({ issuer: r.oidcIssuer, now }),
              claims: ACTIONS_CLAIMS,
              recordedRef: (runId: string) => runId,
              workflow: r.workflow,
              workflowsDir: ACTIONS_WORKFLOWS_DIR,
            },
          ]),
      {
        issuer: r.gitlabOidcIssuer,
        verify: createGitLabIdTokenVerifier({ issuer: r.gitlabOidcIssuer, now }),
        claims: GITLAB_ID_TOKEN_CLAIMS,
        recordedRef: (pipelineId: string) => `${PIPELINE_REF_PREFIX}${pipelineId}`,
        // GitLab's tokens name no workflow file (one pipeline file per project): the pipeline id binds it.
        workflow: '',
        workflowsDir: '',
      },
    ],
    audience: deps.agentUrl,
    ledger: deps.ledger,
    random: deps.random,
    clock: deps.clock,
    logger: deps.logger,
  });
}

/**
 * Start-up: the workflow runs and pipelines a previous fixloop process started and was following when
 * it stopped are followed again, so their end ends their fixloop run as if nothing had happened.
 */
export async function followAgain(
  runner: ActionsRunner,
  deps: {
    ledger: Pick<Ledger, 'unfinishedExternalRuns' | 'appendRunLog'>;
    dispatcher: Pick<Dispatcher, 'runEnded'>;
    logger: Logger;
  },
): Promise<number> {
  const runs = await deps.ledger.unfinishedExternalRuns();
  for (const { run, ref, repository } of runs) {
    runner.follow(run.id, repository, ref, {
      onExit: (runId, end) =>
        void deps.dispatcher
          .runEnded(runId, run.attemptId, end)
          .catch((err: unknown) => deps.logger.error({ err, runId }, 'run state write failed')),
      onOutput: (runId, chunk) => void deps.ledger.appendRunLog(runId, chunk, 256 * 1024).catch(() => undefined),
    });
  }
  if (runs.length > 0) deps.logger.info({ runs: runs.length }, 'following dispatched workflow runs again');
  return runs.length;
}
