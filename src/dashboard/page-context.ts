// What every dashboard page knows besides its own rows (SPEC M4): the session's CSRF token, the stop
// flag, the caps and the words of the host, and what an empty install has configured so far.
import type { ChangeLinks } from '../core/change-link.js';

export interface PageContext {
  csrf: string;
  stopped: boolean | null;
  /** Notice deliveries a sink never took (G1, P4), up to 100. */
  failedDeliveries: number;
  maxAttempts: number;
  /** V4: the configured cap on a person's grants of one more attempt per Task; default 3. */
  maxGrants?: number;
  costCeiling: number | null;
  /** How a Task's change is written and linked, by its host; default GITHUB_LINKS (wiring/change-links.ts). */
  links?: ChangeLinks;
  /** Issue 32: what an empty board tells a new install to do next (absent: the steps without the state). */
  onboarding?: Onboarding;
  /** Issue 33: the Inbox badge: Tasks waiting for a person (null: unknown). */
  inboxCount?: number | null;
  /** Issue 33: who set the global stop and when (the newest `stop_all`). */
  stoppedBy?: { at: string; detail: string | null } | null;
  /** Issue 33: the currency every amount is in; default USD. */
  currency?: string;
  /** Issue 33: the notice sinks configured; absent: unknown. */
  sinkCount?: number;
  /** Issue 33: "now", for relative times; default the clock. */
  nowMs?: number;
}

/** What is configured so far, for the empty board's first steps. */
export interface Onboarding {
  works: number;
  /** GitHub credentials (an App or a token) are configured. */
  github: boolean;
  /** Where people and GitHub reach fixloop (FIXLOOP_PUBLIC_URL), without a trailing slash. */
  publicUrl: string;
}
