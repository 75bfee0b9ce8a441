// The poll (E1–E4) wired once with what it hands each polled Task to: the hand-off (K5, K8), the
// commit status on its own lane (P3, decision 0047), the push guard (K3, K4, built with the gate:
// wiring/gate.ts), and the progress and no-CI checks (I3, T4). Only with host access: the poll reads
// the hosts, and is then the safety net, or the whole ingress without webhooks (E3).
import { createRequeueAfterFix } from '../app/requeue-after-fix.js';
import { createHmac } from 'node:crypto';
import type { Config } from '../config/config.js';
import { createPoller, type Poller } from '../app/poll.js';
import { createHandoff } from '../app/handoff.js';
import { createLabelStanding } from '../app/label-standing.js';
import { createCommitStatusPublisher } from '../app/commit-status.js';
import { createProgressCheck } from '../app/progress-check.js';
import { createNoCiCheck } from '../app/no-ci.js';
import type { Evaluator } from '../app/evaluate.js';
import type { AgentLedger } from '../app/agent-port.js';
import type { Clock, Logger } from '../app/ports.js';
import type { Ledger } from '../app/ledger-port.js';
import type { ProviderPort } from '../app/provider-port.js';
import type { WordsOf } from '../core/host-words.js';
import type { Metrics } from '../metrics/metrics.js';
import type { JudgePush } from './gate.js';

type PollConfig = Pick<
  Config,
  | 'commitStatus'
  | 'maxAttempts'
  | 'maxGrants'
  | 'publicUrl'
  | 'parkAfterMs'
  | 'webhookSecrets'
  | 'github'
  | 'works'
  | 'reviewBots'
  | 'pollIntervalMs'
  | 'noCiMs'
  | 'poll'
>;

export interface PollWiringDeps {
  ledger: Ledger;
  agent: AgentLedger;
  github: ProviderPort;
  logger: Logger;
  clock: Clock;
  metrics: Pick<Metrics, 'hostWriteBackedOff' | 'pollTick' | 'pollDeferred'>;
  evaluator: Evaluator;
  pushGuard: JudgePush | null;
  /** Issue 36 item 4: the open red rounds of base branches, closed each tick once their base heals. */
  baseReds?: { heal(): Promise<unknown> };
  wordsOf: WordsOf;
  /** The id of a repository's host (the registry's), carried by the reds the poll reads. */
  hostIdOf?: (repository: string) => string;
  selfLogin(repository: string): Promise<string | null>;
  /** How often the commit status watches the decision log (ms; default 2 s). */
  commitStatusEveryMs?: number | undefined;
}

export interface PollWiring {
  poller: Poller;
  /** The commit status's watch and lane (P3), when FIXLOOP_COMMIT_STATUS is on. */
  commitStatus: { stop(): Promise<void>; drain(): Promise<void> } | null;
}

export function pollFromConfig(config: PollConfig, deps: PollWiringDeps): PollWiring {
  const { ledger, agent, github, logger, clock, evaluator, metrics } = deps;
  // P3: the `fixloop` status on the head, from every Task the poll reads and from new decisions.
  const commitStatus = config.commitStatus
    ? createCommitStatusPublisher({
        ledger,
        host: github,
        wordsOf: deps.wordsOf,
        logger,
        maxAttempts: config.maxAttempts,
        dashboardUrl: config.publicUrl,
        clock,
        onBackoff: () => metrics.hostWriteBackedOff('commit_status'),
      })
    : null;
  const stopCommitStatus = commitStatus ? commitStatus.watch(deps.commitStatusEveryMs ?? 2_000) : null;
  const handoff = createHandoff({
    wordsOf: deps.wordsOf,
    ledger,
    host: github,
    logger,
    clock,
    parkAfterMs: config.parkAfterMs,
    // Before a webhook secret exists (decision 0050), the credential GitHub is reached with keys it.
    stateKey: createHmac('sha256', config.webhookSecrets[0] ?? config.github.privateKey ?? config.github.token ?? '')
      .update('fixloop-state-comment')
      .digest(),
    markHuman: (taskId, at) => agent.markHuman(taskId, at),
    maxGrants: config.maxGrants,
    maxAttempts: config.maxAttempts, // K8: the comment says attempts used of the budget
    publicUrl: config.publicUrl, // K8: the comment links to the Task page
    // F1 (decision 0042): approve-one counts only from a person who may push to the repository.
    labelStanding: createLabelStanding({
      works: config.works,
      host: github,
      selfLogin: (repository) => deps.selfLogin(repository),
      reviewBots: config.reviewBots,
      wordsOf: deps.wordsOf,
    }),
  });
  const progress = createProgressCheck({
    agent,
    host: github,
    clock,
    logger,
    intervalMs: config.pollIntervalMs,
    evaluator,
  });
  // T4: a head after an attempt that no CI runs on is told to a person, not waited on for ever.
  const noCi = createNoCiCheck({ agent, host: github, evaluator, clock, waitMs: config.noCiMs });
  const poller = createPoller({
    ledger,
    host: github,
    ...(deps.hostIdOf ? { hostIdOf: deps.hostIdOf } : {}),
    logger,
    clock,
    evaluator,
    works: config.works,
    intervalMs: config.pollIntervalMs,
    handoff,
    ...(commitStatus ? { commitStatus } : {}),
    ...(deps.pushGuard ? { pushGuard: deps.pushGuard } : {}),
    progress: async (task, pr, runs) => {
      await progress(task, pr, runs);
      await noCi(task, pr, runs);
    },
    ciMinutes: (taskId, head, minutes) => agent.setCiMinutes(taskId, head, minutes),
    requeue: createRequeueAfterFix({ works: config.works, ledger, host: github, logger }),
    observeTick: (seconds) => metrics.pollTick(seconds),
    observeDeferred: () => metrics.pollDeferred(),
    ...(deps.baseReds ? { afterTick: () => deps.baseReds!.heal() } : {}),
    concurrency: config.poll.concurrency,
    reserveFraction: config.poll.rateLimitReserve,
  });
  return {
    poller,
    commitStatus:
      commitStatus && stopCommitStatus ? { stop: stopCommitStatus, drain: () => commitStatus.drain() } : null,
  };
}
