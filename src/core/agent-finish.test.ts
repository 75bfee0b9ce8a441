import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { agentFinish } from './agent-finish.js';

const MENTION = '2026-12-05T10:00:00Z';

describe('agentFinish: the end Copilot records on the pull request after a mention', { timeout: 10_000 }, () => {
  const table: {
    name: string;
    events: { event: string; createdAt: string }[];
    want: 'completed' | 'failed' | null;
  }[] = [
    { name: 'no events yet', events: [], want: null },
    {
      name: 'started, still working',
      events: [{ event: 'copilot_work_started', createdAt: '2026-12-05T10:00:05Z' }],
      want: null,
    },
    {
      name: 'finished after the mention',
      events: [
        { event: 'copilot_work_started', createdAt: '2026-12-05T10:00:05Z' },
        { event: 'copilot_work_finished', createdAt: '2026-12-05T10:09:00Z' },
      ],
      want: 'completed',
    },
    {
      name: 'failed after the mention',
      events: [{ event: 'copilot_work_finished_failure', createdAt: '2026-12-05T10:02:00Z' }],
      want: 'failed',
    },
    {
      name: "an earlier session's finish is not this mention's",
      events: [{ event: 'copilot_work_finished', createdAt: '2026-12-05T09:59:59Z' }],
      want: null,
    },
    {
      name: 'the first finish after the mention decides',
      events: [
        { event: 'copilot_work_finished', createdAt: '2026-12-05T09:00:00Z' },
        { event: 'copilot_work_finished', createdAt: '2026-12-05T10:30:00Z' },
        { event: 'copilot_work_finished_failure', createdAt: '2026-12-05T10:05:00Z' },
      ],
      want: 'failed',
    },
    {
      name: 'the same second as the mention counts',
      events: [{ event: 'copilot_work_finished', createdAt: MENTION }],
      want: 'completed',
    },
    {
      name: 'other events are not an end',
      events: [{ event: 'labeled', createdAt: '2026-12-05T11:00:00Z' }],
      want: null,
    },
  ];
  for (const c of table)
    test(c.name, () => {
      assert.equal(agentFinish('Copilot', c.events, MENTION)?.state ?? null, c.want);
    });

  test('its words name the agent and the time, for the run log and the notice', () => {
    const end = agentFinish(
      'Copilot',
      [{ event: 'copilot_work_finished', createdAt: '2026-12-05T10:09:00Z' }],
      MENTION,
    );
    assert.equal(
      end?.detail,
      'Copilot reported on the pull request at 2026-12-05T10:09:00Z that it had finished its work',
    );
  });

  test('an unreadable mention time ends nothing', () => {
    assert.equal(agentFinish('Copilot', [{ event: 'copilot_work_finished', createdAt: MENTION }], 'soon'), null);
  });
});
