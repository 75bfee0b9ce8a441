// Bounded request bodies for everything the Hono app serves (SPEC A1, issue 31): each route class has
// a limit, checked before any route — sign-in, the session, the API token — does any work. A declared
// length past it is refused before a byte is read. A chunked body is counted as it arrives and
// refused at the first chunk past the limit: sign-in's and the dashboard forms' are read here (at
// most their small limit; hono's bodyLimit) and must parse as a form, or a plain 400; the API's are
// only counted as the route reads them, so nothing is held before the API token is checked. A 413,
// or any answer before a chunked body was read to its end, says `Connection: close`, so Node drops
// the socket instead of reading the rest. The webhooks (webhook.ts, gitlab-webhook.ts) and /mcp take
// the raw request and keep their own caps.
import type { Context, MiddlewareHandler, Next } from 'hono';
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

/** The middleware, first on the Hono app (router.ts). */
export function boundedBodies(limits: Record<BodyClass, number> = BODY_LIMITS): MiddlewareHandler {
  const read = {
    signIn: bodyLimit({ maxSize: limits.signIn, onError: (c) => tooLarge(c, limits.signIn) }),
    form: bodyLimit({ maxSize: limits.form, onError: (c) => tooLarge(c, limits.form) }),
  };
  return async (c, next) => {
    const cls = bodyClassOf(c.req.path);
    const length = c.req.header('content-length');
    if (length !== undefined && !(Number(length) <= limits[cls])) return tooLarge(c, limits[cls]);
    // GET and HEAD bodies are never read; a chunked one is not drained after the answer either.
    if (!c.req.raw.body) return c.req.header('transfer-encoding') ? closeUnlessRead(c, next, () => false) : next();
    if (cls === 'api') return counted(c, next, limits.api);
    return read[cls](c, () => formParses(c, next));
  };
}

/** A form body (bounded by now) must parse: read it once, check it, hand the same bytes on. */
async function formParses(c: Context, next: Next): Promise<void> {
  const type = c.req.header('content-type') ?? '';
  if (!FORM_TYPES.has(type.split(';')[0]!.trim().toLowerCase())) return next();
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  try {
    await new Response(bytes, { headers: { 'content-type': type } }).formData();
  } catch {
    c.res = c.text('The form could not be read; send it again from the page.', 400);
    return;
  }
  c.req.raw = new Request(c.req.raw, { body: bytes });
  return next();
}

/**
 * The API's body, counted as the route reads it and never held here: past `max` the read fails and
 * the answer is a 413, whatever the route made of the failed read.
 */
async function counted(c: Context, next: Next, max: number): Promise<void> {
  let seen = 0;
  let over = false;
  // A declared body is bounded by its length, so Node may drain what the route leaves; a chunked one is not.
  let ended = c.req.header('content-length') !== undefined;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, out) {
      seen += chunk.byteLength;
      if (seen <= max) return out.enqueue(chunk);
      over = true;
      out.error(new RangeError(`request body over ${max} bytes`));
    },
    flush() {
      ended = true;
    },
  });
  c.req.raw = new Request(c.req.raw, { body: c.req.raw.body!.pipeThrough(counter), duplex: 'half' } as RequestInit);
  await closeUnlessRead(c, next, () => ended);
  if (over) c.res = tooLarge(c, max);
}

/** Run the route; if its answer comes before the body was read to its end, close the connection after it. */
async function closeUnlessRead(c: Context, next: Next, read: () => boolean): Promise<void> {
  await next();
  if (read()) return;
  const res = new Response(c.res.body, c.res);
  res.headers.set('connection', 'close');
  c.res = res;
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
