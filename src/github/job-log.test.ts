// The job-log tail (SPEC J2) against a real local HTTPS "blob host" with a throwaway self-signed
// certificate: https only, no credentials sent, a 40 MiB log cut at 32 MiB with the socket closed,
// memory bounded by the tail buffer, timestamps and ANSI escapes stripped, errors as LogReadError.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { cleanLogLine, cutMarker, fetchLogTail, LOG_MAX_BYTES, LogReadError, TailBuffer } from './job-log.js';
import { listenLoopback, closeServer } from '../../test/support/loopback.js';

const TS = '2026-11-30T02:11:36.1234567Z ';
const BIG_LOG_BYTES = 40 * 1024 * 1024;
const LINE_BYTES = 100;

/** Line i of the big log: a timestamp, a coloured number, padding; exactly LINE_BYTES with its newline. */
function bigLine(i: number): string {
  const head = `${TS}\x1b[32mline ${String(i).padStart(8, '0')}\x1b[0m `;
  return `${head}${'x'.repeat(LINE_BYTES - 1 - Buffer.byteLength(head))}\n`;
}
const cleanBigLine = (i: number): string => cleanLogLine(bigLine(i).slice(0, -1));

interface BigState {
  written: number;
  finished: boolean;
  closedBeforeFinish: boolean;
  closed: Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'fixloop-job-log-'));
let ca: Buffer;
let blob: HttpsServer;
let plain: HttpServer;
let base = '';
let plainBase = '';
let plainConnections = 0;
let seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
let big: BigState | null = null;

function streamBigLog(res: ServerResponse): BigState {
  let onClose = (): void => {};
  const state: BigState = {
    written: 0,
    finished: false,
    closedBeforeFinish: false,
    closed: new Promise<void>((r) => (onClose = r)),
  };
  res.on('close', () => {
    state.closedBeforeFinish = !state.finished;
    onClose();
  });
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  let i = 0;
  const pump = (): void => {
    while (state.written < BIG_LOG_BYTES && !res.destroyed) {
      let chunk = '';
      for (let n = 0; n < 655 && state.written + chunk.length < BIG_LOG_BYTES; n++) chunk += bigLine(i++);
      state.written += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end(() => (state.finished = true));
  };
  pump();
  return state;
}

before(async () => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
    ],
    { stdio: 'ignore' },
  );
  ca = readFileSync(join(dir, 'cert.pem'));

  plain = createHttpServer((_req, res) => res.end('plain'));
  plain.on('connection', () => plainConnections++);
  plainBase = await listenLoopback(plain);

  blob = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca }, (req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    switch (req.url) {
      case '/log':
        res.end(
          `\uFEFF${TS}##[group]Run npm test\n` +
            `${TS}\x1b[36;1mnpm test\x1b[0m\n` +
            `${TS}\x1b]8;;https://example.com\x07link\x1b]8;;\x07 text\r\n` +
            `${TS}\x1b[31m✖ fails\x1b[39m\x1b[K\n` +
            `${TS}##[error]Process completed with exit code 1.\n`,
        );
        return;
      case '/big':
        big = streamBigLog(res);
        return;
      case '/missing':
        res.writeHead(404).end('Not Found');
        return;
      case '/to-log':
        res.writeHead(302, { location: '/log' }).end();
        return;
      case '/to-plain':
        res.writeHead(302, { location: `${plainBase}/log` }).end();
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' }).end();
        return;
      case '/hang':
        return; // never answers
      default:
        res.writeHead(500).end();
    }
  });
  base = await listenLoopback(blob, 'https');
});

after(async () => {
  await closeServer(blob);
  await new Promise<void>((r) => plain.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
  plainConnections = 0;
  big = null;
});

async function readError(p: Promise<unknown>): Promise<LogReadError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof LogReadError, `expected a LogReadError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the read to fail');
}

describe('fetchLogTail (J2)', () => {
  it('refuses an http URL before any connection is made', async () => {
    const err = await readError(fetchLogTail(`${plainBase}/log`, { ca }));
    assert.equal(err.code, 'not_https');
    await new Promise((r) => setImmediate(r));
    assert.equal(plainConnections, 0);
  });

  it('refuses any other scheme, and a string that is not a URL', async () => {
    assert.equal((await readError(fetchLogTail('file:///etc/passwd'))).code, 'not_https');
    assert.equal((await readError(fetchLogTail('not a url'))).code, 'not_https');
  });

  it('sends no credentials to the blob host: only a user-agent', async () => {
    await fetchLogTail(`${base}/log`, { ca });
    const [req] = seen;
    assert.ok(req);
    assert.equal(req.headers.authorization, undefined);
    assert.equal(req.headers.cookie, undefined);
    assert.deepEqual(Object.keys(req.headers).sort(), ['connection', 'host', 'user-agent']);
  });

  it('strips the timestamps and the ANSI escapes, keeping ##[group]-style markers', async () => {
    const tail = await fetchLogTail(`${base}/log`, { ca });
    assert.deepEqual(tail.text.split('\n'), [
      '##[group]Run npm test',
      'npm test',
      'link text',
      '✖ fails',
      '##[error]Process completed with exit code 1.',
    ]);
    assert.equal(tail.truncated, false);
    assert.equal(tail.cutAtBytes, null);
  });

  it('returns only the last `lines` lines, and says the text is not the whole log', async () => {
    const tail = await fetchLogTail(`${base}/log`, { ca, lines: 2 });
    assert.deepEqual(tail.text.split('\n'), ['✖ fails', '##[error]Process completed with exit code 1.']);
    assert.equal(tail.truncated, true);
    assert.equal(tail.cutAtBytes, null);
  });

  it('follows an https redirect, again without credentials', async () => {
    const tail = await fetchLogTail(`${base}/to-log`, { ca });
    assert.match(tail.text, /exit code 1/);
    assert.deepEqual(
      seen.map((s) => s.url),
      ['/to-log', '/log'],
    );
    assert.ok(seen.every((s) => s.headers.authorization === undefined && s.headers.cookie === undefined));
  });

  it('refuses a redirect to http without connecting to it', async () => {
    const err = await readError(fetchLogTail(`${base}/to-plain`, { ca }));
    assert.equal(err.code, 'not_https');
    assert.equal(plainConnections, 0);
  });

  it('gives up after a few redirects', async () => {
    const err = await readError(fetchLogTail(`${base}/loop`, { ca }));
    assert.equal(err.code, 'too_many_redirects');
    assert.equal(seen.length, 4); // the URL itself and three redirects
  });

  it('reports a 404 as an http_status error value', async () => {
    const err = await readError(fetchLogTail(`${base}/missing`, { ca }));
    assert.equal(err.code, 'http_status');
    assert.equal(err.status, 404);
  });

  it('reports an untrusted certificate as a network error', async () => {
    assert.equal((await readError(fetchLogTail(`${base}/log`))).code, 'network');
  });

  it('gives up at the deadline', async () => {
    const err = await readError(fetchLogTail(`${base}/hang`, { ca, timeoutMs: 150 }));
    assert.equal(err.code, 'timeout');
  });

  it('stops reading a 40 MiB log at 32 MiB, closes the socket, and ends the tail with the cut marker', async () => {
    const tail = await fetchLogTail(`${base}/big`, { ca });
    assert.equal(tail.bytesRead, LOG_MAX_BYTES);
    assert.equal(tail.cutAtBytes, LOG_MAX_BYTES);
    assert.equal(tail.truncated, true);

    assert.ok(big);
    await big.closed;
    assert.equal(big.closedBeforeFinish, true, 'the server saw the socket closed before it finished writing');
    assert.equal(big.finished, false);
    assert.ok(big.written < BIG_LOG_BYTES, `the server wrote ${big.written} bytes: the rest was never sent`);

    const lines = tail.text.split('\n');
    assert.equal(lines.length, 201, '200 lines and the marker');
    assert.equal(lines.at(-1), cutMarker(LOG_MAX_BYTES));
    // 32 MiB ends 32 bytes into line 335544: that fragment, and before it the real, complete lines.
    const lastWhole = Math.floor(LOG_MAX_BYTES / LINE_BYTES) - 1;
    assert.equal(lines.at(-2), cleanLogLine(bigLine(lastWhole + 1).slice(0, LOG_MAX_BYTES % LINE_BYTES)));
    assert.equal(lines.at(-3), cleanBigLine(lastWhole));
    assert.equal(lines[0], cleanBigLine(lastWhole - 198));
    assert.equal(
      lines.at(-3),
      `line ${String(lastWhole).padStart(8, '0')} ${'x'.repeat(LINE_BYTES - 1 - TS.length - 'line 00000000 '.length - 9)}`,
    );
  });

  it('keeps no more than keepBytes of a long log', async () => {
    const keepBytes = 4096;
    const tail = await fetchLogTail(`${base}/big`, { ca, keepBytes, maxBytes: 1024 * 1024, lines: 2000 });
    assert.equal(tail.bytesRead, 1024 * 1024);
    const body = tail.text.split('\n').slice(0, -1); // without the marker
    // The last 4096 bytes of 1 MiB of 100-byte lines: a dropped fragment, lines 10445–10484 whole, a fragment of 10485.
    assert.equal(body.length, 41);
    assert.equal(body[0], cleanBigLine(10445));
    assert.equal(body.at(-1), cleanLogLine(bigLine(10485).slice(0, (1024 * 1024) % LINE_BYTES)));
  });
});

describe('TailBuffer (J2 memory bound)', () => {
  it('holds exactly the last capacity bytes, whatever the chunk sizes, and never grows', () => {
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (const capacity of [1, 7, 64, 1000]) {
      const buf = new TailBuffer(capacity);
      const all: Buffer[] = [];
      let total = 0;
      for (let k = 0; k < 200; k++) {
        const chunk = Buffer.alloc(rnd(capacity * 2 + 3), k % 251);
        for (let j = 0; j < chunk.length; j++) chunk[j] = (k * 31 + j) % 256;
        buf.write(chunk);
        all.push(chunk);
        total += chunk.length;
        const expected = Buffer.concat(all).subarray(Math.max(0, total - capacity));
        assert.deepEqual(buf.bytes(), expected);
        assert.ok(buf.held() <= capacity);
        assert.equal(buf.dropped, total - buf.held());
      }
    }
  });
});
