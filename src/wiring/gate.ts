// The gate (app/gate/) wired once, with everything it calls built before it: the push guard (K3, K4),
// which stops the loop through the gate's own notice; the comment commands (F2), which act as a
// person's actions; T2's re-run and T1's base checks. Nothing is bound to the gate after it exists.
import type { Config } from '../config/config.js';
import { createEvaluator, type EvaluateDeps, type Evaluator } from '../app/evaluate.js';
import { createGuardStop } from '../app/gate/outcome.js';
import { createPushGuard } from '../app/push-guard.js';
import { checkRuleOfAttempt } from '../app/gate/check-rule.js';
import { createCommentCommands } from '../app/comment-commands.js';
import type { createPersonActions } from '../app/person-actions.js';
import { createBaseChecks } from '../app/base-checks.js';
import { createBaseRedNotice, type BaseRedNotice } from '../app/base-red-notice.js';
import { verdictOfConclusion } from '../core/verdict.js';
import { routeRepository } from '../core/route.js';
import { progressWithoutPoll } from '../app/progress-from-head.js';
import type { Dispatcher } from '../app/dispatch.js';
import type { Clock, Logger } from '../app/ports.js';
import type { Ledger } from '../app/ledger-port.js';
import type { ProviderPort } from '../app/provider-port.js';
import type { PathPolicy } from '../core/path-policy.js';
import { boundOfWork } from '../core/diff-bound.js';
import type { Task } from '../core/types.js';
import { rerunFromConfig } from '../wiring.js';

type GateConfig = Pick<
  Config,
  | 'works'
  | 'maxAttempts'
  | 'maxGrants'
  | 'reviewBots'
  | 'cost'
  | 'wakeCaps'
  | 'matrixSettleMs'
  | 'redOnBase'
  | 'pollIntervalMs'
  | 'rerunsPerHead'
>;

export interface GateWiringDeps {
  ledger: Ledger;
  logger: Logger;
  clock: Clock;
  decisions: EvaluateDeps['decisions'];
  agent: EvaluateDeps['agent'];
  dispatcher: EvaluateDeps['dispatcher'] & Pick<Dispatcher, 'pushSeen'>;
  /** How stored deliveries read again: the host registry's (wiring/hosts.ts). */
  classify: EvaluateDeps['classify'];
  /** The routed provider port (wiring/hosts.ts); null without any host access. */
  github: ProviderPort | null;
  selfLogin: NonNullable<EvaluateDeps['selfLogin']>;
  /** A person's actions (M4), which the comment commands apply. */
  actions: ReturnType<typeof createPersonActions>;
  /** The caller's own (tests: fakes); default from the config. */
  requestRerun?: EvaluateDeps['requestRerun'];
  baseChecks?: EvaluateDeps['baseChecks'];
  /** Issue 35: approves the agent's held workflow runs (the mention runner's approveWorkflows). */
  approvePendingRuns?: EvaluateDeps['approvePendingRuns'];
  fault?: EvaluateDeps['fault'];
  /** The words of each repository's host, for the notices the gate files (decision 0060). */
  wordsOf: EvaluateDeps['wordsOf'];
  /** K4: the path policy of every repository, with every registered host's CI files (wiring/path-policy.ts). */
  pathPolicy: PathPolicy;
}

/** The push guard as the poll and the gate call it: true when it stopped the loop. */
export type JudgePush = (task: Task, headSha: string) => Promise<boolean>;

/** The evaluator, and the push guard it calls (null without host access), which the poll calls too. */
export function gateFromConfig(
  config: GateConfig,
  deps: GateWiringDeps,
): { evaluator: Evaluator; pushGuard: JudgePush | null; baseReds: BaseRedNotice | null } {
  const { ledger, logger, clock, agent, github } = deps;
  // K3/K4: every push after an automatic attempt is judged (thrash, forbidden changes) by the poll and
  // by the gate; a stop files the Task's one notice the way the gate files its own.
  const stopLoop = createGuardStop({
    ledger,
    decisions: deps.decisions,
    logger,
    maxAttempts: config.maxAttempts,
    wordsOf: deps.wordsOf,
  });
  const pushGuard = github
    ? createPushGuard({
        host: github,
        wordsOf: deps.wordsOf,
        agent,
        logger,
        policyFor: () => deps.pathPolicy,
        checkRuleOf: checkRuleOfAttempt(ledger, config.works), // issue 36: a check's rule bounds its fix's paths
        boundFor: (repository) => boundOfWork(routeRepository(config.works, repository).work), // issue 36
        stop: async (task, reason, detail) => {
          await stopLoop(task, reason, detail, task.ciHeadSha);
        },
      })
    : null;
  // F2: `/fixloop off|on|retry|status` from a person with standing, applied as that person's action.
  const command = createCommentCommands({
    actions: deps.actions,
    ledger,
    host: github,
    wordsOf: deps.wordsOf,
    maxAttempts: config.maxAttempts,
    maxGrants: config.maxGrants,
  });
  // T2: a transient failure's failed jobs are re-run once per head before the agent is paid to look.
  const requestRerun = deps.requestRerun ?? rerunFromConfig(config, ledger, github, logger);
  // T1: what fails on the base branch, read when a red is judged, cached for a poll interval.
  const branchChecks =
    github && config.redOnBase
      ? createBaseChecks({ host: github, clock, ttlMs: config.pollIntervalMs, logger })
      : undefined;
  const baseChecks = deps.baseChecks ?? branchChecks;
  // Issue 36 item 4: a red base told once (a notice, and an issue where the Work sets `baseIssue`),
  // closed when a read of the base shows it healed; a suite red before its jobs is judged by them.
  const baseReds = branchChecks
    ? createBaseRedNotice({
        ledger,
        host: github,
        wordsOf: deps.wordsOf,
        issueFor: (repository) => {
          const route = routeRepository(config.works, repository);
          return route.kind === 'data' && route.work.baseIssue === true;
        },
        readBranch: branchChecks.ofBranch,
        logger,
      })
    : null;
  const failingJobsOf = github
    ? async (repository: string, sha: string) =>
        (await github.listCheckRuns(repository, sha))
          .filter((r) => r.status === 'completed' && verdictOfConclusion(r.conclusion) === 'red')
          .map((r) => r.name)
    : null;
  const evaluator = createEvaluator({
    command,
    ...(pushGuard ? { judgePush: pushGuard } : {}),
    ledger,
    logger,
    works: config.works,
    maxAttempts: config.maxAttempts,
    decisions: deps.decisions,
    classify: deps.classify,
    reviewBots: config.reviewBots,
    ...(github?.reviewComments ? { reviewComments: github.reviewComments.bind(github) } : {}), // issue 36
    selfLogin: deps.selfLogin,
    ...(github?.authorAssociation ? { associationOf: github.authorAssociation.bind(github) } : {}),
    // F1/F2 on GitHub (decision 0042): standing is the person's permission on the repository.
    ...(github?.repositoryPermission ? { permissionOf: github.repositoryPermission.bind(github) } : {}),
    ...(github ? { pullRequestHead: async (r: string, n: number) => (await github.getPullRequest(r, n)).headSha } : {}),
    agent,
    cost: config.cost,
    wakeCaps: config.wakeCaps,
    matrixSettleMs: config.matrixSettleMs,
    ...(requestRerun ? { requestRerun } : {}),
    ...(baseChecks ? { baseChecks } : {}),
    ...(deps.approvePendingRuns ? { approvePendingRuns: deps.approvePendingRuns } : {}),
    // Issue 36: a branch only behind its base is updated through its host, no model run.
    ...(github?.updateBranch ? { updateBranch: github.updateBranch.bind(github) } : {}),
    ...(failingJobsOf ? { failingJobsOf } : {}),
    // Decision 0075: why a merge train let a merge request go (GitLab's system notes).
    ...(github?.queueDrop ? { queueDropOf: github.queueDrop.bind(github) } : {}),
    ...(baseReds
      ? {
          baseRedHeld: (task: Task, base: { ref: string; failing: readonly string[] }, checks: readonly string[]) =>
            baseReds
              .held(task, base, checks)
              .catch((err: unknown) =>
                logger.warn({ err, taskId: task.id }, 'base red: the notice could not be filed'),
              ),
        }
      : {}),
    dispatcher: deps.dispatcher,
    wordsOf: deps.wordsOf,
    ...(deps.fault ? { fault: deps.fault } : {}),
    // I3 (issue 35): a head a webhook moved is progress at once, poll or no poll, so the red of an
    // agent's fix is judged when it arrives rather than after the poll next reads the pull request.
    // A run that ends with its agent's push (the mention runner) ends here first.
    newHead: async (taskId: number, head: string) => {
      await deps.dispatcher.pushSeen(taskId, head);
      // K3/K4 and the bound on diff growth (issue 36): the push is judged before it counts as progress,
      // as the poll does, so a push that stops the loop never acknowledges the attempt it answered.
      const task = pushGuard ? await ledger.getTask(taskId) : null;
      if (task && task.ciHeadSha === head && (await pushGuard!(task, head))) return 0;
      return progressWithoutPoll({ agent, logger }, taskId, head);
    },
  });
  return { evaluator, pushGuard, baseReds };
}
