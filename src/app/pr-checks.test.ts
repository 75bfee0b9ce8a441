// `pr checks` (SPEC J1, J2) over an in-memory fake of our own ProviderPort and a fake log reader:
// one entry per check run and status, failing by B3, logs for the first five failing Actions jobs
// only, a log that cannot be read reported on its entry alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ProviderError,
  type CheckRunInfo,
  type CommitStatusInfo,
  type ProviderPort,
  type PullRequestInfo,
} from './provider-port.js';
import { LOG_LINES_MAX, MAX_LOGS, prChecks, type CheckRunEntry, type FetchLog, type StatusEntry } from './pr-checks.js';

const HEAD = 'c0ffee'.padEnd(40, '0');

function pullRequest(): PullRequestInfo {
  return {
    repository: 'acme/app',
    number: 7,
    state: 'open',
    merged: false,
    headSha: HEAD,
    headRef: 'agent/fix',
    headRepository: 'acme/app',
    baseRef: 'main',
    author: 'agent',
    draft: false,
    labels: [],
    mergeableState: null,
    updatedAt: '2026-11-30T02:00:00Z',
  };
}

let nextId = 100;
function checkRun(name: string, conclusion: string | null, over: Partial<CheckRunInfo> = {}): CheckRunInfo {
  return {
    id: nextId++,
    name,
    status: conclusion === null ? 'in_progress' : 'completed',
    conclusion,
    startedAt: null,
    completedAt: null,
    detailsUrl: `https://github.com/acme/app/runs/${name}`,
    appSlug: 'github-actions',
    outputTitle: null,
    outputSummary: null,
    ...over,
  };
}

function status(context: string, state: CommitStatusInfo['state']): CommitStatusInfo {
  return {
    context,
    state,
    description: `${context} is ${state}`,
    targetUrl: `https://ci.example/${context}`,
    updatedAt: null,
  };
}

/** An in-memory GitHub: answers what `pr checks` reads, records the calls, refuses the rest. */
class FakeGitHub implements ProviderPort {
  calls: string[] = [];
  jobLogUrlFails = new Map<number, ProviderError>();
  pullRequestFails: ProviderError | null = null;

  constructor(
    readonly runs: CheckRunInfo[],
    readonly statuses: CommitStatusInfo[] = [],
  ) {}

  async getPullRequest(repository: string, number: number): Promise<PullRequestInfo> {
    this.calls.push(`getPullRequest ${repository}#${number}`);
    if (this.pullRequestFails) throw this.pullRequestFails;
    return pullRequest();
  }
  async listCheckRuns(repository: string, ref: string): Promise<CheckRunInfo[]> {
    this.calls.push(`listCheckRuns ${repository} ${ref}`);
    return this.runs;
  }
  async listStatuses(repository: string, ref: string): Promise<CommitStatusInfo[]> {
    this.calls.push(`listStatuses ${repository} ${ref}`);
    return this.statuses;
  }
  async jobLogUrl(repository: string, jobId: number): Promise<string> {
    this.calls.push(`jobLogUrl ${repository} ${jobId}`);
    const err = this.jobLogUrlFails.get(jobId);
    if (err) throw err;
    return `https://blob.example/logs/${jobId}?sig=x`;
  }
  requiredChecks(): Promise<string[] | null> {
    throw new Error('not used by pr checks');
  }
  workflowRunOfJob(): Promise<number> {
    throw new Error('not used by pr checks');
  }
  rerunFailedJobs(): Promise<void> {
    throw new Error('not used by pr checks');
  }
  createCommitStatus(): Promise<void> {
    throw new Error('not used');
  }
  addLabels(): Promise<void> {
    throw new Error('not used by pr checks');
  }
  removeLabel(): Promise<void> {
    throw new Error('not used by pr checks');
  }
  listIssueComments(): never {
    throw new Error('not used by pr checks');
  }
  createIssueComment(): never {
    throw new Error('not used by pr checks');
  }
  updateIssueComment(): never {
    throw new Error('not used by pr checks');
  }
  listReviews(): never {
    throw new Error('not used by pr checks');
  }
  compareCommits(): never {
    throw new Error('not used by pr checks');
  }
  selfLogin(): Promise<string | null> {
    throw new Error('not used by pr checks');
  }
}

/** A log reader answering `log of <url>` lines, or failing for the URLs it is told to. */
function fakeFetchLog(fail: Map<string, Error> = new Map()) {
  const seen: Array<{ url: string; lines: number }> = [];
  const fetchLog: FetchLog = async (url, opts) => {
    seen.push({ url, lines: opts.lines });
    const err = fail.get(url);
    if (err) throw err;
    return { text: `first line of ${url}\nlast line`, truncated: true };
  };
  return { fetchLog, seen };
}

const input = { repository: 'Acme/App', number: 7, failingOnly: false, logLines: 200 };

function runEntry(entries: unknown[], name: string): CheckRunEntry {
  const e = (entries as CheckRunEntry[]).find((x) => x.kind === 'check_run' && x.name === name);
  assert.ok(e, `no check run entry ${name}`);
  return e;
}

describe('prChecks (J1)', () => {
  it('lists one entry per check run and per status of the head, with failing computed per B3', async () => {
    const conclusions: Array<[string | null, boolean]> = [
      ['failure', true],
      ['timed_out', true],
      ['action_required', true],
      ['startup_failure', true],
      ['cancelled', false],
      ['neutral', false],
      ['skipped', false],
      ['stale', false],
      ['success', false],
      [null, false],
    ];
    const states: Array<[CommitStatusInfo['state'], boolean]> = [
      ['failure', true],
      ['error', true],
      ['pending', false],
      ['success', false],
    ];
    const github = new FakeGitHub(
      conclusions.map(([c]) => checkRun(`run-${c}`, c, { appSlug: 'some-ci' })),
      states.map(([s]) => status(`ci/${s}`, s)),
    );
    const result = await prChecks({ host: github, fetchLog: fakeFetchLog().fetchLog }, input);

    assert.equal(result.repository, 'acme/app');
    assert.equal(result.number, 7);
    assert.equal(result.headSha, HEAD);
    assert.deepEqual(github.calls.slice(1).sort(), [`listCheckRuns acme/app ${HEAD}`, `listStatuses acme/app ${HEAD}`]);
    assert.equal(result.entries.length, conclusions.length + states.length);
    for (const [c, failing] of conclusions) {
      const e = runEntry(result.entries, `run-${c}`);
      assert.equal(e.failing, failing, `conclusion ${c}`);
      assert.equal(e.conclusion, c);
    }
    const statusEntries = result.entries.filter((e): e is StatusEntry => e.kind === 'status');
    assert.deepEqual(
      statusEntries.map((e) => [e.state, e.failing, e.status]),
      states.map(([s, failing]) => [s, failing, s === 'pending' ? 'pending' : 'completed']),
    );
    assert.deepEqual(statusEntries[0], {
      kind: 'status',
      name: 'ci/failure',
      status: 'completed',
      state: 'failure',
      description: 'ci/failure is failure',
      failing: true,
      url: 'https://ci.example/ci/failure',
    });
  });

  it('fetches the log tails of the first five failing Actions jobs, and no more', async () => {
    const failing = Array.from({ length: 7 }, (_, i) => checkRun(`job-${i}`, 'failure'));
    const github = new FakeGitHub([
      checkRun('passes', 'success'),
      checkRun('third-party', 'failure', { appSlug: 'circleci' }),
      ...failing,
    ]);
    const { fetchLog, seen } = fakeFetchLog();
    const result = await prChecks({ host: github, fetchLog }, { ...input, logLines: 50 });

    assert.equal(seen.length, MAX_LOGS);
    // The whole kept tail is read (J3 parses it); only `logLines` of it are shown.
    assert.ok(seen.every((s) => s.lines === LOG_LINES_MAX));
    assert.deepEqual(
      github.calls.filter((c) => c.startsWith('jobLogUrl')),
      failing.slice(0, 5).map((r) => `jobLogUrl acme/app ${r.id}`),
    );
    for (const [i, run] of failing.entries()) {
      const e = runEntry(result.entries, run.name);
      assert.equal(e.jobId, run.id);
      if (i < 5)
        assert.deepEqual(e.log, {
          lines: [`first line of https://blob.example/logs/${run.id}?sig=x`, 'last line'],
          truncated: true,
        });
      else assert.equal(e.log, undefined);
      assert.equal(e.logError, undefined);
    }
    const thirdParty = runEntry(result.entries, 'third-party');
    assert.equal(thirdParty.jobId, undefined, 'only an Actions check run is a job');
    assert.equal(thirdParty.log, undefined);
    assert.equal(runEntry(result.entries, 'passes').log, undefined);
  });

  it('reports a log that cannot be read on its entry only', async () => {
    const [a, b, c] = [checkRun('a', 'failure'), checkRun('b', 'timed_out'), checkRun('c', 'failure')];
    const github = new FakeGitHub([a, b, c], [status('ci/lint', 'error')]);
    github.jobLogUrlFails.set(a.id, new ProviderError(410, 'the log has expired', false));
    const unreadable = Object.assign(new Error('the log host answered 404'), { code: 'http_status' });
    const { fetchLog } = fakeFetchLog(new Map([[`https://blob.example/logs/${b.id}?sig=x`, unreadable]]));

    const result = await prChecks({ host: github, fetchLog }, input);

    assert.equal(runEntry(result.entries, 'a').logError, 'GitHub answered 410: the log has expired');
    assert.equal(runEntry(result.entries, 'a').log, undefined);
    assert.equal(runEntry(result.entries, 'b').logError, 'http_status: the log host answered 404');
    assert.equal(runEntry(result.entries, 'b').log, undefined);
    assert.equal(runEntry(result.entries, 'c').logError, undefined);
    assert.equal(runEntry(result.entries, 'c').log?.lines.length, 2);
    assert.equal(result.entries.length, 4);
  });

  it('with failingOnly, keeps only the failing entries, statuses included', async () => {
    const github = new FakeGitHub(
      [checkRun('ok', 'success'), checkRun('red', 'failure'), checkRun('skipped', 'skipped')],
      [status('ci/a', 'success'), status('ci/b', 'error')],
    );
    const result = await prChecks({ host: github, fetchLog: fakeFetchLog().fetchLog }, { ...input, failingOnly: true });
    assert.deepEqual(
      result.entries.map((e) => [e.kind, e.name]),
      [
        ['check_run', 'red'],
        ['status', 'ci/b'],
      ],
    );
  });

  it("shows a failing run's own output, bounded: for a check that is no Actions job it is the only account", async () => {
    const github = new FakeGitHub([
      checkRun('lint', 'failure', { appSlug: 'some-ci', outputTitle: '3 problems', outputSummary: 'x'.repeat(9000) }),
      checkRun('build', 'success', { outputTitle: 'ok', outputSummary: 'all good' }),
      checkRun('types', 'failure'),
    ]);
    const result = await prChecks({ host: github, fetchLog: fakeFetchLog().fetchLog }, input);
    const lint = runEntry(result.entries, 'lint');
    assert.equal(lint.output?.title, '3 problems');
    assert.ok(lint.output!.summary!.length <= 4000 && lint.output!.summary!.startsWith('xxx'), 'bounded');
    assert.equal(runEntry(result.entries, 'build').output, undefined, 'only failing runs');
    assert.equal(runEntry(result.entries, 'types').output, undefined, 'none reported, none shown');
  });

  it('fetches no log when zero log lines are asked for', async () => {
    const github = new FakeGitHub([checkRun('red', 'failure')]);
    const { fetchLog, seen } = fakeFetchLog();
    const result = await prChecks({ host: github, fetchLog }, { ...input, logLines: 0 });
    assert.equal(seen.length, 0);
    assert.equal(runEntry(result.entries, 'red').log, undefined);
    assert.equal(runEntry(result.entries, 'red').failing, true);
  });

  it('fails as a whole when GitHub refuses the pull request', async () => {
    const github = new FakeGitHub([]);
    github.pullRequestFails = new ProviderError(404, 'Not Found', false);
    await assert.rejects(
      prChecks({ host: github, fetchLog: fakeFetchLog().fetchLog }, input),
      (err) => err instanceof ProviderError && err.status === 404,
    );
  });
});
