// The port of a notice sink (SPEC G1, P4): where the outbox worker hands one notice, once per try.
// Implemented by src/sinks/ (Slack incoming webhooks, signed webhooks); a failure is a value.
import type { Notice } from '../core/types.js';
import type { BaseRedFacts, BaseRedSinkEvent } from '../core/base-red-payload.js';

export type SendResult =
  | { kind: 'delivered' }
  /** `retryAfterMs`: the sink asked to wait this long (429/503 with Retry-After); null when it did not. */
  | { kind: 'failed'; error: string; retryAfterMs: number | null };

export interface NoticeSink {
  /** The configured name: the outbox rows' `sink`, and part of the idempotency key. */
  readonly name: string;
  readonly kind: 'slack' | 'webhook';
  /** One try. `key` is the same on every try of this notice to this sink; `signal` aborts on shutdown. */
  send(notice: Notice, key: string, signal: AbortSignal): Promise<SendResult>;
  /**
   * Decision 0075: one try of a red base's event (its round opened, or its base healed), `message` in
   * the host's words. Absent: the sink is told only of Tasks' notices.
   */
  sendBaseRed?(
    event: BaseRedSinkEvent,
    red: BaseRedFacts,
    message: string,
    key: string,
    signal: AbortSignal,
  ): Promise<SendResult>;
}
