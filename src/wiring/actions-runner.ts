// Issue 35 item 3: the actions runner and the OIDC exchange it relies on, wired. The runner dispatches
// and reads workflow runs on fixloop's own GitHub credentials (App or token) and records each workflow
// run's id in the ledger; the exchange checks a workflow's identity token with jose against the
// configured issuer, and binds it to that record.
import type { Config } from '../config/config.js';
import type { ActionsRunnerConfig } from '../config/runner-config.js';
import { ConfigError } from '../config/errors.js';
import type { Clock, Logger, Random } from '../app/ports.js';
import type { Ledger } from '../app/ledger-port.js';
import type { Dispatcher } from '../app/dispatch.js';
import { createWorkflowTokenExchange, type ExchangeWorkflowToken } from '../app/exchange-workflow-token.js';
import { createActionsRunner, type ActionsRunner } from '../runners/actions.js';
import { createWorkflowCalls } from '../github/workflows.js';
import { githubAuthOf } from './github-auth.js';
import { ACTIONS_WORKFLOWS_DIR, createActionsOidcVerifier } from '../github/actions-oidc.js';

export function actionsRunnerFrom(
  r: ActionsRunnerConfig,
  config: Pick<Config, 'github'>,
  deps: { ledger: Pick<Ledger, 'setRunExternalRef'>; logger: Logger },
): ActionsRunner {
  const g = config.github;
  const auth = githubAuthOf(g);
  if (auth === null)
    throw ConfigError.at(
      'environment',
      ['runner', 'kind'],
      'the actions runner dispatches workflows on GitHub: set GITHUB_TOKEN, or APP_ID with PRIVATE_KEY (an App needs actions: write)',
    );
  return createActionsRunner({
    workflow: r.workflow,
    pollMs: r.pollMs,
    host: createWorkflowCalls({ apiUrl: g.apiUrl, auth, log: deps.logger }),
    record: (runId, workflowRunId) => deps.ledger.setRunExternalRef(runId, workflowRunId),
    logger: deps.logger,
  });
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
  return createWorkflowTokenExchange({
    verify: createActionsOidcVerifier({ issuer: r.oidcIssuer, now: () => deps.clock.now() }),
    ledger: deps.ledger,
    random: deps.random,
    clock: deps.clock,
    logger: deps.logger,
    expected: {
      issuer: r.oidcIssuer,
      audience: deps.agentUrl,
      workflow: r.workflow,
      workflowsDir: ACTIONS_WORKFLOWS_DIR,
    },
  });
}

/**
 * Start-up: the workflow runs a previous fixloop process dispatched and was following when it stopped
 * are followed again, so their end ends their fixloop run as if nothing had happened.
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
