// One lifecycle of the spend corpus as it unfolds: the queue of world steps, the branch's head, the
// deliveries GitHub sends for each step (signed payloads built from GitHub's own examples by the test
// suite's builders, and the same stream as plain events for the naive policies), and the scripted
// agent: a run started for a head does what the lifecycle says, and its push moves the head and
// queues what follows it. A re-run of failed jobs fixloop asks GitHub for queues what the lifecycle
// says the re-run reports (new check runs on the same commit). Every policy replays the lifecycle through its own World, so each sees
// exactly the stream its own decisions lead to — and the same stream for the same decisions.
import { createHash } from 'node:crypto';
import {
  checkRunPayload,
  checkSuitePayload,
  delivery,
  reviewPayload,
  workflowRunPayload,
  type Delivery,
  type RepoSpec,
} from '../test/support/deliveries.js';
import type { AgentAction, AgentPush, CiStep, Job, Lifecycle, WorldStep } from './spend-corpus.js';
import type { QueueStep } from './spend-lifecycle.js';
import { queueDeliveries } from './spend-lifecycles-queue.js';

export const SPEND_REPO: RepoSpec = { owner: 'acme', name: 'shop', id: 4242 };
export const SPEND_REPO_NAME = `${SPEND_REPO.owner}/${SPEND_REPO.name}`;

/** A delivery as the naive policies read it: what it is about, not how it is shaped. */
export type StreamEvent =
  | {
      kind: 'check_run';
      sha: string;
      name: string;
      status: 'queued' | 'in_progress' | 'completed';
      conclusion: string | null;
    }
  | { kind: 'check_suite' | 'workflow_run'; sha: string; name: string; conclusion: string }
  | { kind: 'review'; sha: string; state: 'changes_requested' | 'approved' }
  /** Issue 36: the merge queue let the pull request go (never red itself: its queue's checks are). */
  | { kind: 'dequeued'; sha: string; reason: string };

export interface StreamItem {
  event: StreamEvent;
  /** The signed-ready delivery fixloop receives for it. */
  delivery: Delivery;
  /** The completed check run GitHub holds from this delivery on (what the poll and pr checks read). */
  checkRun?: EmittedCheckRun;
  /** Which of the step's bursts it arrives in (0 first; a poll interval between bursts). */
  burst: number;
}

/** A check run GitHub holds for a commit after the step (what the poll and pr checks read). */
export interface EmittedCheckRun {
  sha: string;
  id: number;
  name: string;
  conclusion: 'success' | 'failure';
  output: string | null;
  startedAt: string;
  completedAt: string;
  /** The workflow run the job belongs to (GET actions/jobs/{id} → run_id; what a re-run names). */
  runId: number;
}

export interface Emitted {
  items: StreamItem[];
  review: {
    id: number;
    sha: string;
    state: 'CHANGES_REQUESTED' | 'APPROVED';
    body: string;
    submittedAt: string;
  } | null;
  /** The branch's new head, when the step moved it. */
  moved: string | null;
  /** The base branch's new head and its checks, when the step moved it. */
  base?: { sha: string; checkRuns: EmittedCheckRun[] };
  /** Issue 36: the head's merge state as GitHub reports it from now on, when the step set it. */
  mergeState?: string;
}

export interface Tally {
  runs: number;
  fixes: number;
  falseFixes: number;
  /** Re-runs of failed jobs asked for (fixloop only: the naive policies never ask). */
  reruns: number;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export class World {
  readonly lc: Lifecycle;
  readonly branch: string;
  /** The branch's head (a label). */
  head: string;
  /** Every head the branch has had, oldest first. */
  readonly heads: string[];
  readonly tally: Tally = { runs: 0, fixes: 0, falseFixes: 0, reruns: 0 };
  /** Pushes the agent made, in order, with the head they came from. */
  readonly pushes: Array<{ from: string; push: AgentPush }> = [];
  private readonly queue: WorldStep[];
  private readonly runsFor = new Map<string, number>();
  private readonly now: () => Date;
  private nextDelivery = 1;
  private nextCheckRun: number;
  private nextReview: number;
  /** Workflow run and suite ids per head and workflow (a re-run keeps them, with the next attempt number). */
  private readonly workflowRuns = new Map<string, { id: number; suite: number; attempt: number }>();
  /** The latest result of each job per head and workflow (what a re-run of the failed ones starts from). */
  private readonly latestJobs = new Map<string, Map<string, Job>>();
  /** Re-runs asked per head and workflow. */
  private readonly rerunsAsked = new Map<string, number>();
  /** Heads with a failure to read (a failed job, a change request): a run for any other head has nothing to fix. */
  private readonly failing = new Set<string>();
  /** Workflow runs started so far (their ids follow from it). */
  private runsStarted = 0;
  /** How often the base branch moved. */
  private baseMoves = 0;

  constructor(lc: Lifecycle, opts: { now: () => Date }) {
    this.lc = lc;
    this.branch = `agent/${lc.id}`;
    this.head = lc.firstHead;
    this.heads = [lc.firstHead];
    this.queue = [...lc.world];
    this.now = opts.now;
    this.nextCheckRun = lc.pr * 10_000;
    this.nextReview = lc.pr * 100;
  }

  /** The base branch's head commit (`main`). */
  get baseSha(): string {
    return this.sha(`base#${this.baseMoves}`);
  }

  /** The base branch head's check runs: as GitHub holds them before the lifecycle starts, or after a base step. */
  baseCheckRuns(jobs: readonly Job[] = this.lc.base ?? [{ name: 'test', conclusion: 'success' }]): EmittedCheckRun[] {
    const at = iso(new Date(this.now().getTime() - 600_000));
    return jobs.map((job, i) => ({
      sha: this.baseSha,
      id: this.lc.pr * 10_000 + 9_000 + 10 * this.baseMoves + i,
      name: job.name,
      conclusion: job.conclusion,
      output: job.output ?? null,
      startedAt: at,
      completedAt: at,
      runId: this.lc.pr * 1000 + 900 + this.baseMoves,
    }));
  }

  /**
   * fixloop asked GitHub to re-run the failed jobs of workflow run `runId`: what the lifecycle says
   * the re-run reports is queued ahead of the rest of the world (by default the same failures).
   */
  rerun(runId: number): CiStep | null {
    for (const [key, run] of this.workflowRuns) {
      if (run.id !== runId) continue;
      const [head, workflow] = key.split('\u0000') as [string, string];
      const n = this.rerunsAsked.get(key) ?? 0;
      this.rerunsAsked.set(key, n + 1);
      this.tally.reruns++;
      const failed = [...(this.latestJobs.get(key)?.values() ?? [])].filter((j) => j.conclusion === 'failure');
      const step: CiStep = { kind: 'ci', head, workflow, jobs: this.lc.reruns?.[head]?.[n] ?? failed, rerun: true };
      this.queue.unshift(step);
      return step;
    }
    return null;
  }

  /** The commit SHA of a head label (40 hex, fixed per lifecycle). */
  sha(label: string): string {
    return createHash('sha1').update(`${this.lc.id}:${label}`).digest('hex');
  }

  labelOf(sha: string | null): string | null {
    if (sha === null) return null;
    return this.heads.find((h) => this.sha(h) === sha) ?? null;
  }

  get pending(): boolean {
    return this.queue.length > 0;
  }

  next(): WorldStep | undefined {
    return this.queue.shift();
  }

  /** What GitHub holds and sends for the step; a push step moves the head. */
  emit(step: WorldStep): Emitted {
    switch (step.kind) {
      case 'push':
        this.moveTo(step.to);
        return { items: [], review: null, moved: step.to };
      case 'base':
        this.baseMoves++;
        return {
          items: [],
          review: null,
          moved: null,
          base: { sha: this.baseSha, checkRuns: this.baseCheckRuns(step.jobs) },
        };
      case 'merge_state':
        // A conflict is something for the agent to fix on that head (a run for it acts).
        if (step.state === 'dirty') this.failing.add(step.head);
        return { items: [], review: null, moved: null, mergeState: step.state };
      case 'review':
        return this.emitReview(step.head, step.state, step.body);
      case 'ci':
        return this.emitCi(step);
      case 'queue':
        return this.emitQueue(step);
    }
  }

  /**
   * A model run started for `head` acts now. While `head` is still the branch's head it does the
   * lifecycle's next action for that head; otherwise (or past the script) it does nothing. A push
   * moves the head and queues its consequences ahead of the rest of the world.
   */
  act(head: string | null): AgentAction {
    this.tally.runs++;
    const label = head ?? this.head;
    // A run for a head with nothing failing yet (a gate awaiting approval) finds nothing to fix.
    if (!this.failing.has(label)) return { kind: 'nothing' };
    const n = this.runsFor.get(label) ?? 0;
    this.runsFor.set(label, n + 1);
    const action: AgentAction =
      label === this.head ? (this.lc.agent[label]?.[n] ?? { kind: 'nothing' }) : { kind: 'nothing' };
    if (action.kind === 'push') {
      this.pushes.push({ from: label, push: action });
      this.moveTo(action.to);
      this.queue.unshift(...action.then);
      if (action.verdict === 'fix') this.tally.fixes++;
      if (action.verdict === 'false_fix') this.tally.falseFixes++;
    }
    return action;
  }

  /**
   * Issue 36: fixloop asked GitHub to update the branch whose head was `fromSha`: the lifecycle's
   * merge commit becomes the head and what follows it is queued first. null: the lifecycle has none.
   */
  branchUpdated(fromSha: string): { to: string; then: WorldStep[] } | null {
    const label = this.labelOf(fromSha);
    const update = label === null ? undefined : this.lc.updates?.[label];
    if (!update) return null;
    this.moveTo(update.to);
    this.queue.unshift(...update.then);
    this.tally.fixes++;
    return update;
  }

  private moveTo(to: string): void {
    this.head = to;
    if (!this.heads.includes(to)) this.heads.push(to);
  }

  private deliveryId(): string {
    // Fixed ids, shaped like GitHub's (a GUID), distinct per lifecycle.
    const h = createHash('sha1').update(`${this.lc.id}#${this.nextDelivery++}`).digest('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  }

  /** Issue 36: the queue's commit for `head`: its jobs' check runs (no pointer), then the ejection. */
  private emitQueue(step: QueueStep): Emitted {
    if (step.jobs.some((j) => j.conclusion === 'failure')) this.failing.add(step.head);
    const items = queueDeliveries(step, {
      pr: this.lc.pr,
      headSha: this.sha(step.head),
      queueSha: this.sha(`queue:${step.head}`),
      now: this.now(),
      nextCheckRun: () => this.nextCheckRun++,
      deliveryId: () => this.deliveryId(),
    });
    return { items, review: null, moved: null };
  }

  private emitReview(head: string, state: 'changes_requested' | 'approved', body: string): Emitted {
    const sha = this.sha(head);
    const id = this.nextReview++;
    const submittedAt = iso(this.now());
    const p = reviewPayload({
      repo: SPEND_REPO,
      number: this.lc.pr,
      state,
      body,
      headSha: sha,
      author: 'reviewer',
      authorType: 'User',
    });
    p.review.id = id;
    p.review.submitted_at = submittedAt;
    p.review.commit_id = sha;
    p.pull_request.head.ref = this.branch;
    const item: StreamItem = {
      event: { kind: 'review', sha, state },
      delivery: delivery('pull_request_review', p, this.deliveryId()),
      burst: 0,
    };
    if (state === 'changes_requested') this.failing.add(head);
    return {
      items: [item],
      review: { id, sha, state: state === 'approved' ? 'APPROVED' : 'CHANGES_REQUESTED', body, submittedAt },
      moved: null,
    };
  }

  private emitCi(step: CiStep): Emitted {
    const sha = this.sha(step.head);
    const pointer = { number: this.lc.pr, headSha: this.sha(this.head) }; // the PR's head as GitHub shows it now
    const now = this.now();
    const completedAt = now.toISOString();
    const startedAt = iso(new Date(now.getTime() - 90_000));
    const key = `${step.head}\u0000${step.workflow}`;
    let run = this.workflowRuns.get(key);
    if (!run || !(step.rerun || step.approved)) {
      const n = this.runsStarted++;
      run = { id: this.lc.pr * 1000 + n * 2, suite: this.lc.pr * 1000 + n * 2 + 1, attempt: 1 };
      this.workflowRuns.set(key, run);
    } else if (step.rerun) run.attempt++;
    // A re-run reports only the jobs it re-ran: the others keep their results.
    const latest = step.rerun ? (this.latestJobs.get(key) ?? new Map<string, Job>()) : new Map<string, Job>();
    for (const job of step.jobs) latest.set(job.name, job);
    this.latestJobs.set(key, latest);
    const red = [...latest.values()].some((j) => j.conclusion === 'failure');
    if (step.jobs.some((j) => j.conclusion === 'failure')) this.failing.add(step.head);
    const items: StreamItem[] = [];
    const common = { repo: SPEND_REPO, sha, pr: pointer, branch: this.branch };
    const bursts = Math.max(1, Math.min(step.bursts ?? 1, step.jobs.length));
    const perBurst = Math.ceil(step.jobs.length / bursts);

    for (const [i, job] of step.jobs.entries()) {
      const id = this.nextCheckRun++;
      const burst = Math.floor(i / perBurst);
      const checkRun: EmittedCheckRun = {
        sha,
        id,
        name: job.name,
        conclusion: job.conclusion,
        output: job.output ?? null,
        startedAt,
        completedAt: iso(now),
        runId: run.id,
      };
      const base = { ...common, id, name: job.name };
      if (step.progress) {
        for (const status of ['queued', 'in_progress'] as const) {
          const p = checkRunPayload({ ...base, status, completedAt: null });
          items.push({
            event: { kind: 'check_run', sha, name: job.name, status, conclusion: null },
            delivery: delivery('check_run', p, this.deliveryId()),
            burst,
          });
        }
      }
      const p = checkRunPayload({
        ...base,
        status: 'completed',
        conclusion: job.conclusion,
        completedAt,
        ...(job.output ? { output: job.output } : {}),
      });
      p.check_run.started_at = startedAt;
      items.push({
        event: { kind: 'check_run', sha, name: job.name, status: 'completed', conclusion: job.conclusion },
        delivery: delivery('check_run', p, this.deliveryId()),
        checkRun,
        burst,
      });
    }
    const last = bursts - 1;
    const conclusion = step.awaitingApproval ? 'action_required' : red ? 'failure' : 'success';
    const suite = checkSuitePayload({
      repo: SPEND_REPO,
      sha,
      id: run.suite,
      conclusion,
      pr: pointer,
      updatedAt: completedAt,
    });
    suite.check_suite.head_branch = this.branch;
    suite.check_suite.app = { ...suite.check_suite.app, slug: 'github-actions', name: 'GitHub Actions' };
    items.push({
      event: { kind: 'check_suite', sha, name: 'suite:github-actions', conclusion },
      delivery: delivery('check_suite', suite, this.deliveryId()),
      burst: last,
    });
    const wf = workflowRunPayload({
      repo: SPEND_REPO,
      sha,
      id: run.id,
      attempt: run.attempt,
      conclusion,
      pr: pointer,
      updatedAt: completedAt,
    });
    wf.workflow_run.name = step.workflow;
    wf.workflow_run.head_branch = this.branch;
    items.push({
      event: { kind: 'workflow_run', sha, name: `workflow:${step.workflow}`, conclusion },
      delivery: delivery('workflow_run', wf, this.deliveryId()),
      burst: last,
    });

    // A redelivery is byte-identical and keeps its delivery id.
    if (step.redeliver) items.push(...items.map((i) => ({ event: i.event, delivery: { ...i.delivery }, burst: last })));
    return { items, review: null, moved: null };
  }
}

/** A red verdict, as both fixloop (B3) and the naive policies read a delivery. */
export function isRed(e: StreamEvent): boolean {
  if (e.kind === 'review') return e.state === 'changes_requested';
  if (e.kind === 'dequeued') return false;
  if (e.kind === 'check_run' && e.status !== 'completed') return false;
  return ['failure', 'timed_out', 'action_required', 'startup_failure'].includes(e.conclusion ?? '');
}
