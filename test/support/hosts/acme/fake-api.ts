// A tiny real HTTP fake of Acme Forge's API (test-only): change requests, the build steps of a
// commit with their logs, commit statuses, labels and remarks, behind a bearer token. The client
// (client.ts) talks to it over the network as it would to the real host.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AcmeChange {
  repository: string;
  number: number;
  head: string;
  branch: string;
  author: string;
  state: 'open' | 'closed';
  labels: string[];
}
export interface AcmeBuild {
  id: number;
  repository: string;
  sha: string;
  step: string;
  outcome: 'passed' | 'failed' | 'cancelled';
  finishedAt: string;
  log: string;
}
export interface AcmeRemark {
  id: number;
  body: string;
  author: string;
  updatedAt: string;
}
export interface AcmeStatus {
  repository: string;
  sha: string;
  context: string;
  state: string;
  description: string;
  targetUrl: string | null;
  updatedAt: string;
}

export interface FakeAcme {
  url: string;
  token: string;
  changes: Map<string, AcmeChange>;
  builds: AcmeBuild[];
  statuses: AcmeStatus[];
  remarks: Map<string, AcmeRemark[]>;
  /** Every request as `METHOD /path`, in order. */
  requests: string[];
  close(): Promise<void>;
}

export const changeKey = (repository: string, n: number) => `${repository.toLowerCase()}~${n}`;

export async function startFakeAcme(token = 'acme-token'): Promise<FakeAcme> {
  const changes = new Map<string, AcmeChange>();
  const builds: AcmeBuild[] = [];
  const statuses: AcmeStatus[] = [];
  const remarks = new Map<string, AcmeRemark[]>();
  const requests: string[] = [];
  let nextId = 1;

  async function route(req: IncomingMessage, path: string): Promise<[number, unknown]> {
    if (req.headers.authorization !== `Bearer ${token}`) return [401, { error: 'unauthorized' }];
    const m = /^\/api\/v1\/repos\/([^/]+)\/(.*)$/.exec(path); // the repository URL-encoded, as the client sends it
    if (!m) return [404, { error: 'not_found' }];
    const repository = decodeURIComponent(m[1]!).toLowerCase();
    const rest = m[2]!;
    const body = req.method === 'GET' ? null : JSON.parse((await text(req)) || 'null');
    let p: RegExpExecArray | null;
    if ((p = /^changes\/(\d+)$/.exec(rest))) {
      const c = changes.get(changeKey(repository, Number(p[1])));
      return c ? [200, c] : [404, { error: 'not_found' }];
    }
    if ((p = /^commits\/([0-9a-f]{40})\/builds$/.exec(rest)))
      return [200, builds.filter((b) => b.repository === repository && b.sha === p![1]).map(({ log: _, ...b }) => b)];
    if ((p = /^builds\/(\d+)\/log$/.exec(rest))) {
      const b = builds.find((x) => x.repository === repository && x.id === Number(p![1]));
      return b ? [200, { log: b.log }] : [404, { error: 'not_found' }];
    }
    if ((p = /^commits\/([0-9a-f]{40})\/statuses$/.exec(rest))) {
      if (req.method === 'POST') {
        statuses.push({ repository, sha: p[1]!, ...body, updatedAt: new Date().toISOString() });
        return [201, {}];
      }
      return [200, statuses.filter((s) => s.repository === repository && s.sha === p![1])];
    }
    if ((p = /^changes\/(\d+)\/labels(?:\/(.+))?$/.exec(rest))) {
      const c = changes.get(changeKey(repository, Number(p[1])));
      if (!c) return [404, { error: 'not_found' }];
      if (req.method === 'POST') c.labels = [...new Set([...c.labels, ...(body.labels as string[])])];
      if (req.method === 'DELETE') c.labels = c.labels.filter((l) => l !== decodeURIComponent(p![2] ?? ''));
      return [200, c.labels];
    }
    if ((p = /^changes\/(\d+)\/remarks(?:\/(\d+))?$/.exec(rest))) {
      const key = changeKey(repository, Number(p[1]));
      const list = remarks.get(key) ?? [];
      remarks.set(key, list);
      if (req.method === 'GET') return [200, list];
      const now = new Date().toISOString();
      if (req.method === 'POST') {
        const r = { id: nextId++, body: String(body.body), author: 'fixloop-bot', updatedAt: now };
        list.push(r);
        return [201, r];
      }
      const r = list.find((x) => x.id === Number(p![2]));
      if (!r) return [404, { error: 'not_found' }];
      Object.assign(r, { body: String(body.body), updatedAt: now });
      return [200, r];
    }
    return [404, { error: 'not_found' }];
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    requests.push(`${req.method} ${path}`);
    route(req, path).then(
      ([status, answer]) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      },
      (err: Error) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: err.message }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    changes,
    builds,
    statuses,
    remarks,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function text(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (s += c));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}
