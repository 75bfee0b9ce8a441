// The push guards (SPEC K3, K4): when the pull request's head moves after an automatic attempt, the
// move is the agent's push answering that attempt. The guard reads what the push changed from GitHub
// (compare), records the attempt's diff hash, and stops the loop when the push changes what judges the
// fix (path policy) or goes round in circles (thrash). Every stop goes through `deps.stop`, which files
// the one notice and hands the pull request to a person (G1, K5).
//
// Which diff is hashed (K3): the branch as the attempt left it, measured from where the loop began
// (the head of the Task's first attempt), so "the code came back to where an earlier attempt left it"
// is a repeat, and X, then Y, then X again is an A-B-A — whether the agent's commits toggle a line or
// revert one fix to redo another. What the path policy reads (K4) is the push itself: the attempt's
// head to the new head. The bound on diff growth (issue 36) reads the same diff as the thrash hash: the
// agent's changes since the loop began, so a runaway grown over several pushes is caught as well as one.
// A push those rules would stop is judged again without the base branch's own changes merged or rebased
// in (core/changes-from-base.ts): answering a conflict brings them, and they are not the agent's.
import { pathPolicyVerdict, type ChangedFile, type ForbiddenChange, type PathPolicy } from '../core/path-policy.js';
import { diffHash, thrashVerdict } from '../core/thrash.js';
import { DEFAULT_DIFF_BOUND, diffBoundVerdict, diffSize, type DiffBound } from '../core/diff-bound.js';
import type { Task } from '../core/types.js';
import type { WordsOf } from '../core/host-words.js';
import type { AgentLedger, AttemptLife } from './agent-port.js';
import { ProviderError, type ComparedFile, type Comparison, type ProviderPort } from './provider-port.js';
import type { Logger } from './ports.js';
import { LOG_EVENTS } from '../core/events.js';
import { checkRulePathsVerdict, type CheckRule } from '../core/check-rules.js';
import { withoutBaseChanges } from '../core/changes-from-base.js';

export type PushStopReason =
  'thrash_repeat' | 'thrash_aba' | 'forbidden_change' | 'check_rule_paths' | 'diff_too_large';

export interface PushGuardDeps {
  host: Pick<ProviderPort, 'compareCommits'>;
  agent: Pick<AgentLedger, 'lives' | 'setDiffHash'>;
  /** The path policy of a repository (owner/name, lower-case): configured globs, or DEFAULT_PATH_POLICY. */
  policyFor(repository: string): PathPolicy;
  /** Issue 36: the bound on a repository's diff growth (its Work's `diffBound`). Default: DEFAULT_DIFF_BOUND. */
  boundFor?(repository: string): DiffBound;
  /** Stop the loop for the Task: file its one notice with this reason, and hand the pull request off. */
  stop(task: Task, reason: PushStopReason, detail: string): Promise<void>;
  /** The words of a repository's host (issue 34): why a cut comparison cannot be checked. Default: TRUNCATED_DETAIL. */
  wordsOf?: WordsOf;
  /** Issue 36: the Work's rule for the check an attempt answered (its `paths` bound the push); absent: none. */
  checkRuleOf?(task: Task, attemptId: number): Promise<CheckRule | null>;
}

export interface CheckedPush {
  attemptId: number;
  /** The attempt's head and the head its push reached. */
  from: string;
  to: string;
  diffHash: string;
}

export type PushGuardResult =
  /** Nothing to check: the loop already stopped, no attempt has a head, or every push was checked. */
  | { kind: 'skipped'; why: 'loop_stopped' | 'no_attempt' | 'no_new_push' }
  /** Every push read was allowed (and its hash recorded); `unreadable` lists pushes to read again later. */
  | { kind: 'allowed'; checked: CheckedPush[]; unreadable: UnreadablePush[] }
  /** The loop was stopped for this push (its hash recorded after the stop was filed). */
  | {
      kind: 'stopped';
      reason: PushStopReason;
      detail: string;
      push: CheckedPush;
      offenses: ForbiddenChange[];
      checked: CheckedPush[];
    };

export interface UnreadablePush {
  attemptId: number;
  from: string;
  to: string;
  status: number;
  error: string;
}

/** A host lists a comparison's files up to a cap (GitHub: 300); a push at the cap may hide any file past it. */
export const TRUNCATED_DETAIL =
  'the push changes at least 300 files and the host shows only the first 300, so the rest cannot be checked';

/**
 * K3, K4 for the Task's pushes up to `newHead`. An attempt's push is the move from its head to the
 * next attempt's head, or to `newHead` for the latest one; each is read once (its diff hash is then
 * set). Attempts that share a head (a retry, a review on the same commit) are answered by one push,
 * owned by the last of them. A push GitHub cannot show is left unhashed and read again next time.
 */
export async function checkAgentPush(deps: PushGuardDeps, task: Task, newHead: string): Promise<PushGuardResult> {
  // G2: once the loop stopped, pushes are a person's; nothing is read or judged.
  if (task.noticeAt !== null || task.parkedAt !== null) return { kind: 'skipped', why: 'loop_stopped' };

  const lives = (await deps.agent.lives(task.id))
    .filter((l): l is AttemptLife & { headSha: string } => l.headSha !== null)
    .sort((a, b) => a.attemptId - b.attemptId);
  const loopBase = lives[0]?.headSha;
  if (loopBase === undefined) return { kind: 'skipped', why: 'no_attempt' };

  const owners = lives.filter((l, i) => lives[i + 1]?.headSha !== l.headSha);
  const pushes = owners.map((owner, i) => ({ owner, to: owners[i + 1]?.headSha ?? newHead }));
  if (!pushes.some((p) => p.to !== p.owner.headSha && p.owner.diffHash === null))
    return { kind: 'skipped', why: 'no_new_push' };

  const policy = deps.policyFor(task.repository);
  const history: string[] = [];
  const checked: CheckedPush[] = [];
  const unreadable: UnreadablePush[] = [];
  for (const { owner, to } of pushes) {
    if (owner.diffHash !== null) {
      history.push(owner.diffHash);
      continue;
    }
    if (to === owner.headSha) continue; // not pushed yet (or a review on an older commit came later)
    const from = owner.headSha;
    let push: Comparison;
    let sinceBase: Comparison;
    try {
      push = await deps.host.compareCommits(task.repository, from, to);
      sinceBase = from === loopBase ? push : await deps.host.compareCommits(task.repository, loopBase, to);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      unreadable.push({ attemptId: owner.attemptId, from, to, status: err.status, error: err.message });
      continue;
    }
    const hash = diffHash(unifiedDiff(sinceBase.files));
    const done: CheckedPush = { attemptId: owner.attemptId, from, to, diffHash: hash };

    const cut = deps.wordsOf?.(task.repository).comparisonCut ?? TRUNCATED_DETAIL;
    const bound = deps.boundFor?.(task.repository) ?? DEFAULT_DIFF_BOUND;
    const rule = (await deps.checkRuleOf?.(task, owner.attemptId)) ?? null;
    const judgeChanges = (p: Comparison, since: Comparison) =>
      judgePush(p, policy, cut) ?? judgeRulePaths(p, rule) ?? judgeGrowth(since, bound);
    let stop = judgeChanges(push, sinceBase);
    // The base branch's own changes, merged or rebased in, are not the agent's: judged again without them.
    if (stop !== null && task.baseRef !== null) {
      const own = await withoutTheBase(deps.host, task.repository, task.baseRef, { from, push, loopBase, sinceBase });
      if (own !== null) stop = judgeChanges(own.push, own.sinceBase);
    }
    stop ??= judgeThrash(history, hash);
    if (stop !== null) {
      // The stop is filed before the hash is written: a stop that failed is judged again next time.
      await deps.stop(task, stop.reason, stop.detail);
      await deps.agent.setDiffHash(owner.attemptId, hash);
      return {
        kind: 'stopped',
        reason: stop.reason,
        detail: stop.detail,
        push: done,
        offenses: stop.offenses,
        checked,
      };
    }
    await deps.agent.setDiffHash(owner.attemptId, hash);
    history.push(hash);
    checked.push(done);
  }
  return { kind: 'allowed', checked, unreadable };
}

/**
 * The push and the changes since the loop began without the files the base branch changed to the same
 * result (core/changes-from-base.ts); null when the base's changes cannot be read (the stop stands).
 */
async function withoutTheBase(
  host: PushGuardDeps['host'],
  repository: string,
  baseRef: string,
  c: { from: string; push: Comparison; loopBase: string; sinceBase: Comparison },
): Promise<{ push: Comparison; sinceBase: Comparison } | null> {
  try {
    const sinceFrom = await host.compareCommits(repository, c.from, baseRef);
    const sinceLoop = c.loopBase === c.from ? sinceFrom : await host.compareCommits(repository, c.loopBase, baseRef);
    return {
      push: { ...c.push, files: withoutBaseChanges(c.push.files, sinceFrom.files) },
      sinceBase: { ...c.sinceBase, files: withoutBaseChanges(c.sinceBase.files, sinceLoop.files) },
    };
  } catch (err) {
    if (err instanceof ProviderError || err instanceof TypeError) return null;
    throw err;
  }
}

interface Stop {
  reason: PushStopReason;
  detail: string;
  offenses: ForbiddenChange[];
}

/** K4 over what the push changed; a list cut at GitHub's cap fails closed. */
function judgePush(push: Comparison, policy: PathPolicy, cut: string): Stop | null {
  const verdict = pathPolicyVerdict(push.files.map(toChangedFile), policy);
  if (verdict.kind === 'stop') {
    return {
      reason: 'forbidden_change',
      detail: push.truncated ? `${verdict.detail}; and ${cut}` : verdict.detail,
      offenses: verdict.offenses,
    };
  }
  if (push.truncated) return { reason: 'forbidden_change', detail: cut, offenses: [] };
  return null;
}

/** Issue 36: a fix for a check whose rule lists paths touches only those (a cut list cannot be checked: K4 stopped it already). */
function judgeRulePaths(push: Comparison, rule: CheckRule | null): Stop | null {
  const verdict = checkRulePathsVerdict(rule, push.files);
  return verdict.kind === 'stop' ? { reason: verdict.reason, detail: verdict.detail, offenses: [] } : null;
}

/** Issue 36: the agent's changes since the loop began, against the Work's bound. */
function judgeGrowth(sinceBase: Comparison, bound: DiffBound): Stop | null {
  const verdict = diffBoundVerdict(diffSize(sinceBase.files), bound);
  return verdict.kind === 'stop' ? { reason: verdict.reason, detail: verdict.detail, offenses: [] } : null;
}

/** K3 over the earlier pushes' hashes, in order. */
function judgeThrash(history: readonly string[], hash: string): Stop | null {
  const verdict = thrashVerdict(history, hash);
  return verdict.kind === 'stop' ? { reason: verdict.reason, detail: verdict.detail, offenses: [] } : null;
}

function toChangedFile(f: ComparedFile): ChangedFile {
  return { path: f.path, status: f.status, patch: f.patch ?? undefined, previousPath: f.previousPath };
}

/**
 * The comparison as one unified diff (`diff --git` sections), for the thrash hash. A file GitHub
 * shows no patch for (binary, or too large) is named by its blob SHA, so two different contents of
 * it never hash alike.
 */
export function unifiedDiff(files: readonly ComparedFile[]): string {
  const out: string[] = [];
  for (const f of files) {
    const before = f.status === 'added' ? null : (f.previousPath ?? f.path);
    const after = f.status === 'removed' ? null : f.path;
    out.push(`diff --git a/${before ?? f.path} b/${after ?? f.path}`);
    if (f.status === 'added' && f.previousPath !== undefined)
      out.push(`copy from ${f.previousPath}`, `copy to ${f.path}`);
    if (f.status === 'renamed' && f.previousPath !== undefined && f.previousPath !== f.path)
      out.push(`rename from ${f.previousPath}`, `rename to ${f.path}`);
    if (f.patch === null) {
      out.push(
        `Binary files ${before === null ? '/dev/null' : `a/${before}`} and ${after === null ? '/dev/null' : `b/${after}`} differ`,
        `blob ${f.blobSha ?? 'unknown'}`,
      );
      continue;
    }
    out.push(
      `--- ${before === null ? '/dev/null' : `a/${before}`}`,
      `+++ ${after === null ? '/dev/null' : `b/${after}`}`,
    );
    if (f.patch !== '') out.push(f.patch.replace(/\n$/, ''));
  }
  return out.join('\n');
}

/**
 * The poll's hook (PollDeps.pushGuard): runs the guard and never throws — a push that could not be
 * read, or a ledger that failed, is logged and looked at again on the next tick.
 */
/** The guard as the poll and the webhook path call it: true when it stopped the loop. Never throws. */
export function createPushGuard(
  deps: PushGuardDeps & { logger: Logger },
): (task: Task, headSha: string) => Promise<boolean> {
  return async (task, headSha) => {
    try {
      const result = await checkAgentPush(deps, task, headSha);
      switch (result.kind) {
        case 'stopped':
          deps.logger.warn(
            {
              taskId: task.id,
              attemptId: result.push.attemptId,
              reason: result.reason,
              from: result.push.from,
              to: result.push.to,
              detail: result.detail,
            },
            LOG_EVENTS.GUARD_PUSH_STOPPED,
          );
          return true;
        case 'allowed':
          for (const u of result.unreadable)
            deps.logger.warn({ taskId: task.id, ...u }, LOG_EVENTS.GUARD_PUSH_UNREADABLE);
          for (const c of result.checked) deps.logger.info({ taskId: task.id, ...c }, LOG_EVENTS.GUARD_PUSH_CHECKED);
          return false;
        case 'skipped':
          return false;
      }
    } catch (err) {
      deps.logger.error({ err, taskId: task.id, headSha }, LOG_EVENTS.GUARD_PUSH_FAILED);
    }
    return false;
  };
}
