// Issue 35 items 3 and 6 (SPEC R2, I2): a dispatched workflow (or started pipeline) reaches fixloop
// without a secret in its inputs. It asks its CI for an identity token with fixloop's agent URL as
// audience and sends it here. The token's `iss` picks which of the configured issuers checks it (each
// with its own keys and claim names, given by the wiring); once its signature is checked (the adapter)
// and its claims bind it to a run fixloop dispatched and still follows (core/workflow-claims.ts), a new
// run token is minted for that run, its hash replacing the old one's, and returned once. Any refusal
// changes nothing.
import {
  claimedRunId,
  unverifiedIssuer,
  workflowClaimsVerdict,
  type ClaimNames,
  type WorkflowClaimRefusal,
} from '../core/workflow-claims.js';
import { hashToken } from './dispatch.js';
import type { Ledger } from './ledger-port.js';
import type { Clock, Logger, Random } from './ports.js';
import type { IdentityTokenCheck } from '../hosts/identity-token.js';

/** What the signature check says of a token (src/hosts/identity-token.ts): its claims, or why not trusted. */
export type { IdentityTokenCheck };

export type WorkflowTokenExchange =
  | { kind: 'minted'; runId: number; token: string }
  | { kind: 'refused'; reason: WorkflowClaimRefusal | 'bad_signature'; message: string }
  | { kind: 'unavailable'; message: string };

/** One CI whose identity tokens are taken: its issuer, its keys, its claim names, how its runs are recorded. */
export interface IdentityIssuer {
  issuer: string;
  /** Checks the token's signature against the issuer's published keys (and its time window). */
  verify(token: string): Promise<IdentityTokenCheck>;
  claims: ClaimNames;
  /** The run's external reference as the runner recorded it, from the run id the token claims. */
  recordedRef(claimedRun: string): string;
  /** The configured workflow and where the CI keeps workflow files (read only with a workflow-file claim). */
  workflow: string;
  workflowsDir: string;
}

export interface WorkflowTokenDeps {
  /** The issuers taken, each a distinct URL; a token from any other is refused. */
  issuers: readonly IdentityIssuer[];
  audience: string;
  ledger: Pick<Ledger, 'unfinishedRunByExternalRef' | 'replaceRunToken'>;
  random: Random;
  clock: Clock;
  logger: Logger;
}

export function createWorkflowTokenExchange(deps: WorkflowTokenDeps) {
  const refused = (reason: WorkflowClaimRefusal | 'bad_signature', message: string): WorkflowTokenExchange => {
    deps.logger.warn({ reason }, 'workflow identity token refused');
    return { kind: 'refused', reason, message };
  };
  return async function exchange(token: string): Promise<WorkflowTokenExchange> {
    const iss = unverifiedIssuer(token);
    const issuer = deps.issuers.find((i) => i.issuer === iss);
    if (issuer === undefined) {
      // Checked by the first issuer's keys, so a token that is no JWT at all says so as before.
      if (iss === null && deps.issuers[0]) {
        const checked = await deps.issuers[0].verify(token);
        if (checked.kind === 'refused') return refused(checked.reason, checked.detail);
      }
      return refused('wrong_issuer', 'the token was issued by no CI fixloop takes tokens from');
    }
    const checked = await issuer.verify(token);
    if (checked.kind === 'unavailable') return { kind: 'unavailable', message: checked.detail };
    if (checked.kind === 'refused') return refused(checked.reason, checked.detail);
    const runId = claimedRunId(checked.claims, issuer.claims.run);
    const found = runId === null ? null : await deps.ledger.unfinishedRunByExternalRef(issuer.recordedRef(runId));
    if (runId === null || found === null)
      return refused('unknown_run', 'the token names no workflow run fixloop dispatched and still follows');
    const verdict = workflowClaimsVerdict(
      checked.claims,
      {
        claims: issuer.claims,
        issuer: issuer.issuer,
        audience: deps.audience,
        workflow: issuer.workflow,
        workflowsDir: issuer.workflowsDir,
        repository: found.repository,
        workflowRunId: runId,
      },
      deps.clock.now(),
    );
    if (verdict.kind === 'refuse') return refused(verdict.reason, verdict.detail);
    const minted = deps.random.token(32);
    // Compare-and-set on the run's state: a run that ended meanwhile keeps its old (dead) token.
    if (!(await deps.ledger.replaceRunToken(found.run.id, hashToken(minted))))
      return refused('unknown_run', 'the run has ended');
    deps.logger.info({ runId: found.run.id, taskId: found.run.taskId }, 'run token minted for a workflow');
    return { kind: 'minted', runId: found.run.id, token: minted };
  };
}

export type ExchangeWorkflowToken = ReturnType<typeof createWorkflowTokenExchange>;
