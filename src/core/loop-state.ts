// The loop's state of one Task as a person sees it on the dashboard (SPEC M4): off (a person's switch),
// parked (K5), needs a person (a notice filed, G1), agent running, interrupted (V4: a restart stopped
// its agent, and the attempt will be offered again, free — never shown as idle), awaiting progress
// (I1), or idle. Precedence: off, parked, needs a person, agent running, interrupted, awaiting
// progress, idle; the ledger computes it for a page of Tasks in one query (src/ledger/board.ts).
export const LOOP_STATES = [
  'idle',
  'agent_running',
  'interrupted',
  'awaiting_progress',
  'needs_person',
  'parked',
  'off',
] as const;
export type LoopState = (typeof LOOP_STATES)[number];

/** The words the board shows for each state. */
export const LOOP_STATE_WORDS: Record<LoopState, string> = {
  idle: 'idle',
  agent_running: 'agent running',
  interrupted: 'interrupted by a restart: will be offered again',
  awaiting_progress: 'awaiting progress',
  needs_person: 'needs a person',
  parked: 'parked',
  off: 'off',
};
