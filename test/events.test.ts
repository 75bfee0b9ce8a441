// SPEC N2: the event catalogue. docs/events.md, LOG_EVENTS (src/core/events.ts) and the log calls
// in src/ name the same events: a new event without a row, a row left behind, or a log call with a
// dotted name that is not in the list fails here by name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { posix } from 'node:path';
import { LOG_EVENT_NAMES, LOG_EVENTS } from '../src/core/events.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EVENT_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** The backticked names in the first column of the table in docs/events.md. */
function catalogued(markdown: string): string[] {
  const rows = markdown.split('\n').filter((l) => l.startsWith('|'));
  return rows.slice(2).flatMap((row) => {
    const m = /^\|\s*`([^`]+)`\s*\|/.exec(row);
    return m ? [m[1]!] : [];
  });
}

/** A logger call: `logger.info(`, `deps.logger?.warn(`, `log.error(` … up to its matching paren. */
const LOG_CALL = /\b(?:logger|log)\??\.(?:trace|debug|info|warn|error|fatal)\s*\(/g;

/** The message of every log call in `source` whose message is a string literal shaped like an event name. */
export function dottedMessages(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(LOG_CALL)) {
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < source.length && depth > 0; i++) {
      if (source[i] === '(') depth++;
      else if (source[i] === ')') depth--;
    }
    const args = source.slice(m.index + m[0].length, i - 1);
    // The message is the last argument: a literal right before the closing paren.
    const lit = /(['"`])([^'"`\n]*)\1\s*,?\s*$/.exec(args);
    const msg = lit?.[2];
    if (msg !== undefined && EVENT_NAME.test(msg.split(/[:\s]/)[0]!)) found.push(msg);
  }
  return found;
}

function sourceFiles(): string[] {
  return readdirSync(posix.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .map((p) => `src/${p.split('\\').join('/')}`)
    .filter((p) => /\.tsx?$/.test(p) && !/\.test\.tsx?$/.test(p));
}

describe('the event catalogue (N2)', () => {
  test('the scan reads a dotted message literal however the call is laid out, and skips prose', () => {
    const src = [
      "logger.info({ a: 1 }, 'ci.check_failed');",
      "deps.logger?.warn(\n  { taskId: t.id, why: f(x) },\n  'run.stranded_watching',\n);",
      "logger.error({ err }, 'poll tick failed');",
      "log.warn({}, 'run.stranded_watching: its agent outlived it');",
      'logger.info({}, LOG_EVENTS.DISPATCH_STARTED);',
    ].join('\n');
    assert.deepEqual(dottedMessages(src), [
      'ci.check_failed',
      'run.stranded_watching',
      'run.stranded_watching: its agent outlived it',
    ]);
  });

  test('every name in LOG_EVENTS is an event name, and none is listed twice', () => {
    for (const name of LOG_EVENT_NAMES) assert.match(name, EVENT_NAME);
    assert.equal(new Set(LOG_EVENT_NAMES).size, LOG_EVENT_NAMES.length);
    assert.ok(LOG_EVENT_NAMES.includes(LOG_EVENTS.CI_CHECK_FAILED));
  });

  test('docs/events.md has one row per event of LOG_EVENTS, and no other', () => {
    const doc = catalogued(readFileSync(posix.join(ROOT, 'docs/events.md'), 'utf8'));
    assert.equal(new Set(doc).size, doc.length, 'an event has two rows');
    const code = new Set<string>(LOG_EVENT_NAMES);
    assert.deepEqual(
      { undocumented: [...code].filter((e) => !doc.includes(e)), notInCode: doc.filter((e) => !code.has(e)) },
      { undocumented: [], notInCode: [] },
    );
  });

  test('every log call in src/ whose message is a dotted name logs an event of LOG_EVENTS, exactly', () => {
    const known = new Set<string>(LOG_EVENT_NAMES);
    const strays = sourceFiles().flatMap((f) =>
      dottedMessages(readFileSync(posix.join(ROOT, f), 'utf8'))
        .filter((msg) => !known.has(msg))
        .map((msg) => `${f}: '${msg}'`),
    );
    assert.deepEqual(strays, [], 'add the event to LOG_EVENTS and docs/events.md, and log the constant');
  });
});
