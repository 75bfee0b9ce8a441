// The vendors the `session` runner speaks to (SPEC R2; issue 35 item 4, decision 0067): where a
// session's message goes and in what body, where its state is read and what each state means, where
// its spend is, and whether it signs a status webhook. Devin and Cursor are presets from their
// documented APIs; any other REST vendor is described the same way in the config file.
import { CURSOR_STATES, DEVIN_STATES, DEVIN_V3_STATES, type SessionStateTable } from '../core/session-state.js';

export interface SessionVendor {
  /** How people read it: `devin`, `cursor`, or the config's name for another vendor. */
  readonly name: string;
  /** https, or plain http only to this machine (the runner checks). */
  readonly baseUrl: string;
  /** How the API key is sent: `Authorization: Bearer <key>`, or HTTP Basic with the key as user name. */
  readonly auth: 'bearer' | 'basic';
  /** Path of the message POST; `{sessionId}` is the session id, URL-encoded. */
  readonly messagePath: string;
  /** The JSON body; every `{{prompt}}` and `{{sessionId}}` inside a string is replaced. */
  readonly messageBody: unknown;
  /** Path of the status GET; `{sessionId}` as above. */
  readonly statusPath: string;
  /** RFC 6901 pointer to the state in the status answer (and in a webhook's body). */
  readonly statePointer: string;
  readonly states: SessionStateTable;
  /**
   * Where the status answer reports spend, and what one unit of it costs in US dollars; null: none.
   * `cumulative`: the number counts the whole session (Devin's ACUs), so a run's share is its growth
   * from before the message; `unit` names it, and without a price (null) it is told, not counted.
   */
  readonly spend:
    | { readonly pointer: string; readonly dollarsPerUnit: number }
    | {
        readonly pointer: string;
        readonly dollarsPerUnit: number | null;
        readonly cumulative: true;
        readonly unit: string;
      }
    | null;
  /**
   * A status webhook the vendor signs `sha256=<hex HMAC-SHA256 of the raw body>` in `signatureHeader`;
   * the session id is at `idPointer` in its body, the state at `statePointer`. null: the vendor sends none.
   */
  readonly webhook: { readonly signatureHeader: string; readonly idPointer: string } | null;
}

/**
 * Devin API v1 (docs.devin.ai/api-reference): `POST /v1/sessions/{session_id}/message` with
 * `{message}`, `GET /v1/sessions/{session_id}` → `status_enum`, Bearer key. No webhooks; no spend in
 * v1's session details (ACUs are reported in v3 only).
 */
export function devinVendor(baseUrl = 'https://api.devin.ai'): SessionVendor {
  return {
    name: 'devin',
    baseUrl,
    auth: 'bearer',
    messagePath: '/v1/sessions/{sessionId}/message',
    messageBody: { message: '{{prompt}}' },
    statusPath: '/v1/sessions/{sessionId}',
    statePointer: '/status_enum',
    states: DEVIN_STATES,
    spend: null,
    webhook: null,
  };
}

/**
 * Devin API v3 (docs.devin.ai/api-reference/v3, decision 0074), for a service user's key (`cog_…`) in
 * organization `orgId`: `POST /v3/organizations/{org_id}/sessions/{devin_id}/messages` with
 * `{message}` (a sleeping session wakes), `GET /v3/organizations/{org_id}/sessions/{devin_id}` →
 * `status_detail`, and `acus_consumed`, the session's Agent Compute Units so far — counted as spend at
 * `acuPrice` US dollars per ACU when one is configured (Devin prices ACUs by plan and contract).
 */
export function devinV3Vendor(orgId: string, acuPrice: number | null, baseUrl = 'https://api.devin.ai'): SessionVendor {
  const org = `/v3/organizations/${encodeURIComponent(orgId)}/sessions/{sessionId}`;
  return {
    name: 'devin',
    baseUrl,
    auth: 'bearer',
    messagePath: `${org}/messages`,
    messageBody: { message: '{{prompt}}' },
    statusPath: org,
    statePointer: '/status_detail',
    states: DEVIN_V3_STATES,
    spend: { pointer: '/acus_consumed', dollarsPerUnit: acuPrice, cumulative: true, unit: 'ACU' },
    webhook: null,
  };
}

/**
 * Cursor cloud agents (cursor.com/docs/cloud-agent/api): `POST /v0/agents/{id}/followup` with
 * `{prompt: {text}}`, `GET /v0/agents/{id}` → `status`, the key as HTTP Basic user; a webhook set at
 * the agent's launch posts `statusChange` (`{id, status, …}`) signed in `X-Webhook-Signature`.
 */
export function cursorVendor(baseUrl = 'https://api.cursor.com'): SessionVendor {
  return {
    name: 'cursor',
    baseUrl,
    auth: 'basic',
    messagePath: '/v0/agents/{sessionId}/followup',
    messageBody: { prompt: { text: '{{prompt}}' } },
    statusPath: '/v0/agents/{sessionId}',
    statePointer: '/status',
    states: CURSOR_STATES,
    spend: null,
    webhook: { signatureHeader: 'x-webhook-signature', idPointer: '/id' },
  };
}

export const SESSION_VENDOR_PRESETS = { devin: devinVendor, cursor: cursorVendor } as const;
export type SessionVendorPreset = keyof typeof SESSION_VENDOR_PRESETS;

/** The body template with its placeholders filled, in one pass: a prompt that says `{{sessionId}}` stays as it is. */
export function fillBody(template: unknown, values: { prompt: string; sessionId: string }): unknown {
  if (typeof template === 'string')
    return template.replace(/\{\{(prompt|sessionId)\}\}/g, (_m, name: 'prompt' | 'sessionId') => values[name]);
  if (Array.isArray(template)) return template.map((t) => fillBody(t, values));
  if (template !== null && typeof template === 'object')
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillBody(v, values)]));
  return template;
}

/** A path with its `{sessionId}` filled, URL-encoded so an id cannot leave its path segment. */
export function fillPath(path: string, sessionId: string): string {
  return path.replaceAll('{sessionId}', encodeURIComponent(sessionId));
}
