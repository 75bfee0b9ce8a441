// The fake GitHub's Copilot work events (issue 35, decision 0074): the events GitHub records on a pull
// request while Copilot's cloud agent works on it — `copilot_work_started`, then `copilot_work_finished`
// or `copilot_work_finished_failure` — listed by GET …/issues/{number}/events beside the labels, as
// issue events performed by the `copilot-swe-agent` app with the `Copilot` actor. The fake Copilot
// (fake-vendors/copilot.ts) records them; a test can too.
import * as gh from './payloads.js';
import type { Urls } from './payloads.js';
import { isoNow, nextId, pullKey, type FakeRepo, type FakeState } from './state.js';

export type CopilotWorkEventName = 'copilot_work_started' | 'copilot_work_finished' | 'copilot_work_finished_failure';

export interface FakeCopilotWorkEvent {
  id: number;
  event: CopilotWorkEventName;
  createdAt: string;
}

const COPILOT_APP_ID = 1143301;

function store(state: FakeState): Record<string, FakeCopilotWorkEvent[]> {
  const s = state as FakeState & { copilotWorkEvents?: Record<string, FakeCopilotWorkEvent[]> };
  return (s.copilotWorkEvents ??= {});
}

/** Records one event on the pull request, at the fake's clock. */
export function recordCopilotWork(
  state: FakeState,
  repo: string,
  pullRequest: number,
  event: CopilotWorkEventName,
): FakeCopilotWorkEvent {
  const e = { id: nextId(state), event, createdAt: isoNow(state) };
  (store(state)[pullKey(repo, pullRequest)] ??= []).push(e);
  return e;
}

export function copilotWorkEventsOf(state: FakeState, repo: string, pullRequest: number): FakeCopilotWorkEvent[] {
  return store(state)[pullKey(repo, pullRequest)] ?? [];
}

/** An event as GitHub lists it (the issue-event shape, performed via the Copilot coding agent's app). */
export function copilotWorkEvent(urls: Urls, repo: FakeRepo, e: FakeCopilotWorkEvent): Record<string, unknown> {
  return {
    id: e.id,
    node_id: `CWE_${e.id}`,
    url: `${urls.api}/repos/${repo.fullName}/issues/events/${e.id}`,
    actor: gh.simpleUser(urls, 'Copilot', 'Bot'),
    event: e.event,
    commit_id: null,
    commit_url: null,
    created_at: e.createdAt,
    performed_via_github_app: gh.integration(urls, COPILOT_APP_ID, 'copilot-swe-agent'),
  };
}

/** The pull request's other events with Copilot's among them, oldest first, as GitHub lists them. */
export function withCopilotWork<T>(
  input: { state: FakeState; urls: Urls; params: Record<string, string> },
  repo: FakeRepo,
  others: { at: string; e: T }[],
  payload: (e: T) => Record<string, unknown>,
): Record<string, unknown>[] {
  const copilot = copilotWorkEventsOf(input.state, repo.fullName, Number(input.params.issue_number)).map((e) => ({
    at: e.createdAt,
    body: copilotWorkEvent(input.urls, repo, e),
  }));
  const mine = others.map((o) => ({ at: o.at, body: payload(o.e) }));
  return [...mine, ...copilot].sort((a, b) => a.at.localeCompare(b.at)).map((e) => e.body);
}
