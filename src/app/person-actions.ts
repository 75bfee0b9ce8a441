// A person's actions on the loop (SPEC M4, K5, H1, V4): grant one more attempt (up to the Task's grant
// cap), set that cap, resume with a message, turn the loop off or on for one Task or for all, park and
// unpark, cancel a run. One use-case behind the dashboard, the API and the comment commands, so all act
// the same way, and every action leaves an `acted` decision row whose reason names it: the audit trail
// tells a person's hand from the machine's.
import {
  DEFAULT_MAX_GRANTS,
  grantAllowance,
  grantCapChange,
  grantCapMessage,
  grantWords,
  type GrantAllowance,
} from '../core/grant-cap.js';
import type { PersonAction } from '../core/reasons.js';
import type { Run } from '../core/types.js';
import type { Ledger } from './ledger-port.js';
import type { PersonRunStart } from './dispatch.js';

/** The writes a person's actions make, and the reads that tell a refusal why. */
export type PersonActionsLedger = Pick<
  Ledger,
  | 'getTask'
  | 'getRun'
  | 'grantApproveOne'
  | 'setMaxGrants'
  | 'setLoopOff'
  | 'setParked'
  | 'setRunState'
  | 'writeStopFlag'
  | 'recordDecisions'
  | 'resendOutbox'
>;

export interface PersonActionsDeps {
  ledger: PersonActionsLedger;
  /** K9: a person acting on a Task resets its wake cap. */
  markHuman?: (taskId: number) => Promise<void>;
  /** Stops a run's agent process where the runner can (the command runner); absent, the state alone changes. */
  killRun?: (runId: number) => boolean;
  /** H1: start a person's run with their message as the prompt (the dispatcher's resumeByPerson). */
  resumeByPerson?: (taskId: number, message: string) => Promise<PersonRunStart>;
  /** V4: the configured cap on grants per Task (TASK_MAX_GRANTS); a Task's own cap wins. Default 3. */
  maxGrants?: number;
}

/** The longest message a person's resume takes (it becomes the prompt). */
export const RESUME_MESSAGE_MAX = 10_000;

/** Where the person acted, written into the decision row's detail (a comment names its author; `cli`: the API called by `fixloop`). */
export type Via = 'dashboard' | 'api' | 'cli' | `comment by @${string}`;

export type ActionResult =
  | { kind: 'done'; changed: boolean; run?: Run }
  | { kind: 'not_found'; message: string }
  /** `code` names a refusal a caller answers apart: `grant_cap` (V4) carries the Task's grants. */
  | { kind: 'conflict'; message: string; code?: 'grant_cap'; grants?: GrantAllowance }
  | { kind: 'unavailable'; message: string };

const UNFINISHED: readonly Run['state'][] = ['queued', 'running'];

export function createPersonActions(deps: PersonActionsDeps) {
  const { ledger } = deps;
  const configuredCap = deps.maxGrants ?? DEFAULT_MAX_GRANTS;

  async function record(action: PersonAction, via: Via, taskId: number | null, detail: string) {
    await ledger.recordDecisions([
      { taskId, outcome: 'acted', reason: action, detail: `a person (${via}): ${detail}` },
    ]);
    if (taskId !== null) await deps.markHuman?.(taskId);
  }

  const noTask: ActionResult = { kind: 'not_found', message: 'no such Task' };
  const capped = (taskId: number, grants: GrantAllowance): ActionResult => ({
    kind: 'conflict',
    code: 'grant_cap',
    grants,
    message: grantCapMessage(taskId, grants),
  });

  /** A switch that may already be where the person wants it: recorded only when it moved. */
  async function toggle(
    taskId: number,
    via: Via,
    action: PersonAction,
    write: () => Promise<boolean>,
    detail: string,
  ): Promise<ActionResult> {
    if (!(await ledger.getTask(taskId))) return noTask;
    const changed = await write();
    if (changed) await record(action, via, taskId, detail);
    return { kind: 'done', changed };
  }

  return {
    /**
     * K5 approve-one, the same compare-and-set on the stop round as the `fixloop:approve-one` label;
     * V4: refused past the Task's grant cap, saying how many were used and how to open more.
     */
    async approveOne(taskId: number, via: Via): Promise<ActionResult> {
      const task = await ledger.getTask(taskId);
      if (!task) return noTask;
      if (task.parkedAt !== null) return { kind: 'conflict', message: 'the Task is parked: unpark it first' };
      const before = grantAllowance(task.extraAttempts, configuredCap, task.maxGrants);
      // The cap first: a Task with no grants left is told so whether or not the loop has stopped.
      if (before.left === 0) return capped(task.id, before);
      if (task.noticeAt === null)
        return { kind: 'conflict', message: 'the loop has not stopped for this Task: there is nothing to approve' };
      const granted = await ledger.grantApproveOne(task.id, task.stopRound, configuredCap);
      if (granted.kind === 'capped')
        return capped(task.id, grantAllowance(granted.used, configuredCap, granted.ownCap));
      if (granted.kind === 'changed')
        return { kind: 'conflict', message: 'the Task changed meanwhile (another approval won); read it and retry' };
      const after = grantAllowance(task.extraAttempts + 1, configuredCap, task.maxGrants);
      await record('approve_one', via, task.id, `granted exactly one more automatic attempt (${grantWords(after)})`);
      return { kind: 'done', changed: true };
    },

    /**
     * V4: a person sets the Task's own cap on grants (null: back to the configured cap). Raising it is
     * the only way past the cap; the decision row says from what to what.
     */
    async setGrantCap(taskId: number, maxGrants: number | null, via: Via): Promise<ActionResult> {
      const task = await ledger.getTask(taskId);
      if (!task) return noTask;
      const set = await ledger.setMaxGrants(task.id, maxGrants);
      if (!set) return noTask;
      const change = grantCapChange(task.extraAttempts, configuredCap, set.before, maxGrants);
      if (change.kind === 'unchanged') return { kind: 'done', changed: false };
      const cap = (a: GrantAllowance) => `${a.max}${a.own ? " (this Task's own)" : ' (the configured cap)'}`;
      await record(
        'set_grant_cap',
        via,
        task.id,
        `set the cap on grants of one more attempt from ${cap(change.before)} to ${cap(change.after)}: ${grantWords(change.after)}`,
      );
      return { kind: 'done', changed: true };
    },

    /** H1: a person's run with their message; refused for a closed Task or while a run is unfinished. */
    async resume(taskId: number, message: string, via: Via): Promise<ActionResult> {
      if (!deps.resumeByPerson) return { kind: 'unavailable', message: 'no runner is configured' };
      const task = await ledger.getTask(taskId);
      if (!task) return noTask;
      if (task.state !== 'open') return { kind: 'conflict', message: `the Task is ${task.state}` };
      const text = message.trim();
      if (text === '' || text.length > RESUME_MESSAGE_MAX)
        return { kind: 'conflict', message: `the message must be 1 to ${RESUME_MESSAGE_MAX} characters` };
      const started = await deps.resumeByPerson(task.id, text);
      if (started.kind === 'busy') return { kind: 'conflict', message: started.why };
      if (started.kind === 'unavailable') return { kind: 'unavailable', message: started.why };
      await record('resume', via, task.id, `started run ${started.run.id} with a message (${text.length} characters)`);
      return { kind: 'done', changed: true, run: started.run };
    },

    setLoop(taskId: number, on: boolean, via: Via): Promise<ActionResult> {
      return on
        ? toggle(taskId, via, 'loop_on', () => ledger.setLoopOff(taskId, false), 'turned the loop on for this Task')
        : toggle(taskId, via, 'loop_off', () => ledger.setLoopOff(taskId, true), 'turned the loop off for this Task');
    },

    setParked(taskId: number, parked: boolean, via: Via): Promise<ActionResult> {
      return parked
        ? toggle(taskId, via, 'park', () => ledger.setParked(taskId, true), 'parked the Task')
        : toggle(taskId, via, 'unpark', () => ledger.setParked(taskId, false), 'unparked the Task');
    },

    /** The run becomes `cancelled` (a cancel is never undone by a webhook, D) and its agent is stopped. */
    async cancelRun(runId: number, via: Via): Promise<ActionResult> {
      const run = await ledger.getRun(runId);
      if (!run) return { kind: 'not_found', message: 'no such run' };
      if (!UNFINISHED.includes(run.state))
        return { kind: 'conflict', message: `run ${runId} already ended (${run.state})` };
      const moved = await ledger.setRunState(runId, UNFINISHED, 'cancelled');
      if (!moved) return { kind: 'conflict', message: 'the run ended meanwhile' };
      const killed = deps.killRun?.(runId) ?? false;
      await record('cancel_run', via, run.taskId, `cancelled run ${runId}${killed ? ' and stopped its agent' : ''}`);
      return { kind: 'done', changed: true };
    },

    /** G1/P4: a notice delivery a sink never took is sent again, with its tries counted afresh. */
    async resendNotice(deliveryId: number, via: Via): Promise<ActionResult> {
      const r = await ledger.resendOutbox(deliveryId);
      if (!r) return { kind: 'not_found', message: 'no such notice delivery' };
      if (!r.resent)
        return {
          kind: 'conflict',
          message:
            r.delivery.state === 'failed'
              ? 'someone sent it again meanwhile'
              : `the delivery is ${r.delivery.state}: only a failed one is sent again`,
        };
      await record(
        'resend_notice',
        via,
        r.delivery.taskId,
        `sent notice ${r.delivery.noticeId} to sink ${r.delivery.sink} again after ${r.delivery.attempts} failed tries`,
      );
      return { kind: 'done', changed: true };
    },

    async setGlobalStop(stopped: boolean, via: Via): Promise<ActionResult> {
      await ledger.writeStopFlag(stopped);
      await record(
        stopped ? 'stop_all' : 'start_all',
        via,
        null,
        stopped ? 'set the global stop flag' : 'cleared the global stop flag',
      );
      return { kind: 'done', changed: true };
    },
  };
}

export type PersonActions = ReturnType<typeof createPersonActions>;
