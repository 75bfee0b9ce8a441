// Bounded request bodies for everything the Hono app serves (SPEC A1, issue 31): each route class has
// a limit, checked before any route — sign-in, the session, the API token — does any work. A declared
// length past it is refused before a byte is read; a chunked body is counted as it arrives (hono's
// bodyLimit) and refused at the first chunk past it. A refusal says `Connection: close`, so Node
// drops the socket instead of reading the rest. A form or JSON body that does not parse is a plain
// 400 before any route sees it, never a 500.
// The webhooks (webhook.ts, gitlab-webhook.ts) and /mcp take the raw request and keep their own caps.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

const KiB = 1024;

/** The limit of each route class, in bytes, and why it is that size (decision 0045). */
export const BODY_LIMITS = {
  /** POST /sign-in carries one token field and the form's own fields: a few hundred bytes. */
  signIn: 4 * KiB,
  /**
   * The dashboard's forms. The largest is a resume message of up to RESUME_MESSAGE_MAX (10,000)
   * characters: 3-byte characters percent-encode to 9 bytes each, 90,000 bytes in all.
   */
  form: 128 * KiB,
  /** The JSON API (/api/*): a Task, a state, a run's outcome or spend report — small, with room to spare. */
  api: 1024 * KiB,
} as const;

export type BodyClass = keyof typeof BODY_LIMITS;

/** Which limit a path is held to: sign-in, the JSON API, or (the rest) the dashboard's forms. */
export function bodyClassOf(path: string): BodyClass {
  if (path === '/sign-in') return 'signIn';
  if (path === '/api' || path.startsWith('/api/')) return 'api';
  return 'form';
}

const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);

/**
 * The middleware, first on the Hono app (router.ts): the declared length against the route class's
 * limit (any method), hono's bodyLimit for chunked bodies, then a form body must parse.
 */
export function boundedBodies(limits: Record<BodyClass, number> = BODY_LIMITS): MiddlewareHandler[] {
  const refuse = (c: Context, cls: BodyClass) => tooLarge(c, limits[cls]);
  const declared: MiddlewareHandler = async (c, next) => {
    const cls = bodyClassOf(c.req.path);
    const length = c.req.header('content-length');
    if (length !== undefined && !(Number(length) <= limits[cls])) return refuse(c, cls);
    return next();
  };
  const counted = Object.fromEntries(
    (Object.keys(limits) as BodyClass[]).map((cls) => [
      cls,
      bodyLimit({ maxSize: limits[cls], onError: (c) => refuse(c, cls) }),
    ]),
  ) as Record<BodyClass, MiddlewareHandler>;
  const streamed: MiddlewareHandler = (c, next) => counted[bodyClassOf(c.req.path)](c, next);
  // Bounded by now: a form or JSON body is read once, checked to parse, and the same bytes handed on.
  const parses: MiddlewareHandler = async (c, next) => {
    const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
    const json = type === 'application/json' || type.endsWith('+json');
    if (!c.req.raw.body || !(json || FORM_TYPES.has(type))) return next();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    try {
      if (json && bytes.length > 0) JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
      else if (!json)
        await new Response(bytes, { headers: { 'content-type': c.req.header('content-type')! } }).formData();
    } catch {
      return json
        ? c.json({ error: 'malformed_json', message: 'The body is not valid JSON.' }, 400)
        : c.text('The form could not be read; send it again from the page.', 400);
    }
    c.req.raw = new Request(c.req.raw, { body: bytes });
    return next();
  };
  return [declared, streamed, parses];
}

/** What a 413 says. */
export function tooLargeText(max: number): string {
  return `The request body is larger than this address takes (at most ${max} bytes).`;
}

/**
 * A plain-text 413 that also closes the connection, so Node never reads the rest of the body. A
 * client still sending may see the close as a reset before it reads the 413 (router.ts answers those
 * that ask first with `Expect: 100-continue`); reading on to let it see the answer would cost what
 * the limit saves.
 */
function tooLarge(c: Context, max: number): Response {
  return c.text(tooLargeText(max), 413, { connection: 'close' });
}
