// GitLab's job trace read by a bare streamed request (SPEC J2), against tiny local servers for the
// edges the fake GitLab does not reach: the tail kept, the read cut at its maximum with the socket
// closed, the deadline, refusals, redirects (the token to the instance's origin only), and the
// cleaning of ANSI escapes, section markers and `\r` overwrites. Errors carry a string code, which
// `pr checks` shows as `code: message`.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { prChecks } from '../app/pr-checks.js';
import type { ProviderPort } from '../app/provider-port.js';
import { closeServer, listenLoopback } from '../../test/support/loopback.js';
import { TraceReadError } from './errors.js';
import { cleanTraceLine, readJobTrace } from './job-trace.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('readJobTrace', () => {
  let server: Server;
  let other: Server;
  let url: string;
  let otherUrl: string;
  let handler: Handler = (_req, res) => res.end();
  let otherHandler: Handler = (_req, res) => res.end();
  const tokens: Array<string | undefined> = [];
  const otherTokens: Array<string | undefined> = [];

  before(async () => {
    server = createServer((req, res) => {
      tokens.push(req.headers['private-token'] as string | undefined);
      handler(req, res);
    });
    other = createServer((req, res) => {
      otherTokens.push(req.headers['private-token'] as string | undefined);
      otherHandler(req, res);
    });
    url = await listenLoopback(server);
    otherUrl = await listenLoopback(other);
  });
  after(async () => {
    await closeServer(server);
    await closeServer(other);
  });

  const lines = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `line ${from + i}`).join('\n') + '\n';

  it('keeps only the tail: earlier bytes dropped, the last lines returned, the token in a header', async () => {
    const body = lines(100_000); // ~1.1 MB
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(body);
    };
    const tail = await readJobTrace(`${url}/api/v4/projects/g%2Fp/jobs/1/trace`, {
      token: 'secret',
      keepBytes: 64 * 1024,
      lines: 3,
    });
    assert.equal(tail.text, 'line 99997\nline 99998\nline 99999');
    assert.equal(tail.truncated, true);
    assert.equal(tail.cutAtBytes, null);
    assert.equal(tail.bytesRead, Buffer.byteLength(body));
    assert.equal(tokens.at(-1), 'secret');
  });

  it('stops at the maximum with a marker, closing the connection', async () => {
    let closedEarly = false;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.from(lines(1000));
      let sent = 0;
      res.on('close', () => (closedEarly = sent < 8 * 1024 * 1024));
      const pump = (): void => {
        while (sent < 8 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    const tail = await readJobTrace(`${url}/trace`, { token: 't', maxBytes: 1024 * 1024, lines: 2 });
    assert.equal(tail.cutAtBytes, 1024 * 1024);
    assert.equal(tail.truncated, true);
    assert.match(tail.text.split('\n').at(-1)!, /^\[fixloop: log cut after 1048576 bytes/);
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(closedEarly, 'the rest of the trace was never sent');
  });

  it('a trace exactly the maximum long is not cut', async () => {
    const body = Buffer.alloc(1000, 'a');
    body[999] = 0x0a;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': String(body.length) });
      res.end(body);
    };
    const tail = await readJobTrace(`${url}/trace`, { token: 't', maxBytes: 1000 });
    assert.equal(tail.cutAtBytes, null);
    assert.equal(tail.truncated, false);
  });

  it('gives up at the deadline with code timeout', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('started\n'); // and never ends
    };
    const started = Date.now();
    await assert.rejects(readJobTrace(`${url}/trace`, { token: 't', timeoutMs: 200 }), (err: unknown) => {
      assert.ok(err instanceof TraceReadError);
      assert.equal(err.code, 'timeout');
      return true;
    });
    // The deadline is the behaviour: a bound stays, generous (25× the 200 ms) since load makes timers late.
    assert.ok(Date.now() - started < 5_000, `gave up after ${Date.now() - started} ms`);
  });

  it('a refusal is code http_status with the status', async () => {
    handler = (_req, res) => {
      res.writeHead(403);
      res.end('{"message":"403 Forbidden"}');
    };
    await assert.rejects(readJobTrace(`${url}/trace`, { token: 't' }), (err: unknown) => {
      assert.ok(err instanceof TraceReadError);
      assert.deepEqual([err.code, err.status], ['http_status', 403]);
      return true;
    });
  });

  it('follows a redirect with the token on the same origin only; object storage never sees it', async () => {
    handler = (req, res) => {
      if (req.url === '/first') {
        res.writeHead(302, { location: '/second' });
        return void res.end();
      }
      res.writeHead(302, { location: `${otherUrl}/bucket/trace?X-Amz-Signature=abc` });
      res.end();
    };
    otherHandler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('from object storage\n');
    };
    tokens.length = 0;
    otherTokens.length = 0;
    const tail = await readJobTrace(`${url}/first`, { token: 'secret' });
    assert.equal(tail.text, 'from object storage');
    assert.deepEqual(tokens, ['secret', 'secret']);
    assert.deepEqual(otherTokens, [undefined]);
  });

  it('refuses too many redirects, and a redirect that is not http(s)', async () => {
    handler = (_req, res) => {
      res.writeHead(302, { location: '/again' });
      res.end();
    };
    await assert.rejects(readJobTrace(`${url}/trace`, { token: 't' }), { code: 'too_many_redirects' });
    handler = (_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    };
    await assert.rejects(readJobTrace(`${url}/trace`, { token: 't' }), { code: 'bad_redirect' });
  });

  it('a connection refused is code network', async () => {
    const gone = createServer();
    const goneUrl = await listenLoopback(gone);
    await closeServer(gone);
    await assert.rejects(readJobTrace(`${goneUrl}/trace`, { token: 't' }), { code: 'network' });
  });

  it('refuses nonsense bounds', async () => {
    await assert.rejects(readJobTrace(`${url}/trace`, { token: 't', keepBytes: 0 }), RangeError);
    await assert.rejects(readJobTrace(`${url}/trace`, { token: 't', lines: 1.5 }), RangeError);
  });
});

describe('cleanTraceLine', () => {
  it('removes section markers, options included, and drops a line that held only markers', () => {
    assert.equal(
      cleanTraceLine(
        '\x1b[0Ksection_start:1700000000:prepare_executor[collapsed=true]\r\x1b[0K\x1b[36;1mPreparing\x1b[0;m',
      ),
      'Preparing',
    );
    assert.equal(cleanTraceLine('section_end:1700000001:prepare_executor\r\x1b[0K'), null);
    assert.equal(cleanTraceLine('\x1b[0Ksection_end:1:a\r\x1b[0K\x1b[0Ksection_start:2:b\r\x1b[0K'), null);
  });

  it('shows the last `\\r` overwrite that shows anything, without escapes', () => {
    assert.equal(cleanTraceLine('Downloading 10%\rDownloading 55%\rDownloading 100%'), 'Downloading 100%');
    assert.equal(cleanTraceLine('done\r\x1b[0K'), 'done');
    assert.equal(cleanTraceLine('\x1b[31;1mERROR:\x1b[0;m Job failed'), 'ERROR: Job failed');
  });

  it('keeps an empty line of the job as an empty line', () => {
    assert.equal(cleanTraceLine(''), '');
  });
});

describe('a trace that cannot be read, in pr checks', () => {
  it('is shown on its entry as `code: message`', async () => {
    const port: Pick<ProviderPort, 'getPullRequest' | 'listCheckRuns' | 'listStatuses' | 'jobLogUrl' | 'readJobLog'> = {
      getPullRequest: async () => ({
        repository: 'g/p',
        number: 1,
        state: 'open',
        merged: false,
        headSha: 'a'.repeat(40),
        headRef: 'b',
        headRepository: 'g/p',
        baseRef: 'main',
        author: 'x',
        draft: false,
        labels: [],
        mergeableState: null,
        updatedAt: '2026-12-01T00:00:00Z',
      }),
      listCheckRuns: async () => [
        {
          id: 9,
          name: 'unit',
          status: 'completed',
          conclusion: 'failure',
          startedAt: null,
          completedAt: null,
          detailsUrl: null,
          appSlug: 'gitlab-ci',
          outputTitle: null,
          outputSummary: null,
        },
      ],
      listStatuses: async () => [],
      jobLogUrl: async () => assert.fail('GitLab has no log URL'),
      readJobLog: async () => {
        throw new TraceReadError('http_status', 'GitLab answered 404 for the job trace', 404);
      },
    };
    const result = await prChecks(
      { host: port, fetchLog: async () => assert.fail('not used for GitLab') },
      { repository: 'g/p', number: 1, failingOnly: false, logLines: 10 },
    );
    const entry = result.entries[0]!;
    assert.equal(
      entry.kind === 'check_run' ? entry.logError : null,
      'http_status: GitLab answered 404 for the job trace',
    );
  });
});
