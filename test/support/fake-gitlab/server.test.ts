// The fake GitLab itself, spoken to with plain fetch: tokens, 401/404, encoded path ids, pagination,
// ETags, faults, retry semantics, traces, notes (and who may edit them), discussions, labels, commit statuses,
// reviewers, members, compare, branches.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitLab, type FakeGitLab } from './server.js';

const SHA = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);

type Json = Record<string, any>;

describe('fake GitLab', () => {
  let fake: FakeGitLab;
  let api: string;
  let token: string;
  let auth: { 'private-token': string };
  let projectId: number;
  const enc = encodeURIComponent('acme/sub/shop');

  const get = async (path: string, headers: Record<string, string> = auth) => fetch(`${api}${path}`, { headers });
  const getJson = async (path: string): Promise<any> => {
    const res = await get(path);
    assert.equal(res.status, 200, `GET ${path} → ${res.status} ${await res.clone().text()}`);
    return res.json();
  };
  const send = (method: string, path: string, body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${api}${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  before(async () => {
    fake = await startFakeGitLab();
    api = `${fake.url}/api/v4`;
    token = fake.addToken('fixloop-bot', { userId: 77 });
    auth = { 'private-token': token };
    projectId = fake.addProject('acme/sub/shop', { id: 42, defaultBranch: 'main' }).id;
    fake.addMember('acme/sub/shop', 'fixloop-bot', 30);
    fake.addMember('acme/sub/shop', 'maintainer-mary', 40);
    fake.addMergeRequest('acme/sub/shop', 7, {
      headSha: SHA,
      sourceBranch: 'agent/fix-7',
      author: 'agent',
      labels: ['zeta', 'alpha'],
    });
  });
  after(() => fake.close());

  test('authenticates PRIVATE-TOKEN and Bearer; absent or unknown tokens → 401', async () => {
    const me = await getJson('/user');
    assert.equal(me.id, 77);
    assert.equal(me.username, 'fixloop-bot');
    assert.equal(me.state, 'active');
    assert.match(me.web_url, /\/fixloop-bot$/);
    assert.equal((await get('/user', { authorization: `Bearer ${token}` } as never)).status, 200);
    for (const headers of [{}, { 'private-token': 'glpat-nope' }, { authorization: 'Bearer nope' }]) {
      const res = await get('/user', headers as never);
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { message: '401 Unauthorized' });
    }
    const users = await getJson('/users?username=agent');
    assert.equal(users.length, 1);
    assert.equal(users[0].username, 'agent');
    assert.deepEqual(await getJson('/users?username=nobody'), []);
  });

  test('a project answers by numeric id and by URL-encoded path; unknown ones 404', async () => {
    const byPath = await getJson(`/projects/${enc}`);
    const byId = await getJson(`/projects/${projectId}`);
    assert.deepEqual(byPath, byId);
    assert.equal(byPath.id, 42);
    assert.equal(byPath.path_with_namespace, 'acme/sub/shop');
    assert.equal(byPath.path, 'shop');
    assert.equal(byPath.default_branch, 'main');
    assert.equal(byPath.namespace.full_path, 'acme/sub');
    assert.match(byPath.web_url, /\/acme\/sub\/shop$/);
    const res = await get(`/projects/${encodeURIComponent('acme/nope')}`);
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { message: '404 Project Not Found' });
    assert.equal((await get('/projects/999999')).status, 404);
    const mr = await get(`/projects/${enc}/merge_requests/999`);
    assert.equal(mr.status, 404);
    assert.deepEqual(await mr.json(), { message: '404 Merge Request Not Found' });
    assert.equal((await get(`/projects/${enc}/jobs/999999`)).status, 404);
    assert.equal((await get('/no/such/route')).status, 404);
  });

  test('the single MR has the documented fields; head_pipeline follows the head sha; setHead moves updated_at', async () => {
    const mr = await getJson(`/projects/${enc}/merge_requests/7`);
    for (const field of [
      'id',
      'iid',
      'project_id',
      'title',
      'description',
      'state',
      'draft',
      'work_in_progress',
      'sha',
      'source_branch',
      'target_branch',
      'source_project_id',
      'target_project_id',
      'author',
      'labels',
      'updated_at',
      'created_at',
      'merged_at',
      'detailed_merge_status',
      'merge_status',
      'diff_refs',
      'head_pipeline',
      'web_url',
      'reviewers',
    ]) {
      assert.ok(field in mr, `missing ${field}`);
    }
    assert.equal(mr.iid, 7);
    assert.equal(mr.project_id, 42);
    assert.equal(mr.state, 'opened');
    assert.equal(mr.sha, SHA);
    assert.equal(mr.source_branch, 'agent/fix-7');
    assert.equal(mr.target_branch, 'main');
    assert.equal(mr.author.username, 'agent');
    assert.deepEqual(mr.labels, ['alpha', 'zeta'], 'sorted, as GitLab answers');
    assert.equal(mr.detailed_merge_status, 'mergeable');
    assert.equal(mr.diff_refs.head_sha, SHA);
    assert.match(mr.diff_refs.base_sha, /^[0-9a-f]{40}$/);
    assert.equal(mr.head_pipeline, null);
    assert.match(mr.web_url, /\/acme\/sub\/shop\/-\/merge_requests\/7$/);

    const { id } = fake.addPipeline('acme/sub/shop', { sha: SHA, status: 'running' });
    const withPipeline = await getJson(`/projects/${enc}/merge_requests/7`);
    assert.equal(withPipeline.head_pipeline.id, id);
    assert.equal(withPipeline.head_pipeline.ref, 'agent/fix-7', 'ref defaults to the MR source branch');
    assert.equal(withPipeline.head_pipeline.status, 'running');

    fake.setHead('acme/sub/shop', 7, SHA2);
    const pushed = await getJson(`/projects/${enc}/merge_requests/7`);
    assert.equal(pushed.sha, SHA2);
    assert.ok(pushed.updated_at > mr.updated_at);
    assert.equal(pushed.head_pipeline, null, 'no pipeline for the new head yet');
    const mrPipelines = await getJson(`/projects/${enc}/merge_requests/7/pipelines`);
    assert.deepEqual(
      mrPipelines.map((p: Json) => p.id),
      [id],
    );
    fake.setHead('acme/sub/shop', 7, SHA);
  });

  test('lists page with page/per_page and x-* and Link headers', async () => {
    for (let iid = 100; iid < 105; iid++) fake.addMergeRequest('acme/sub/shop', iid, { headSha: SHA2 });
    fake.addMergeRequest('acme/sub/shop', 106, { headSha: SHA2, state: 'merged' });
    const first = await get(`/projects/${enc}/merge_requests?state=opened&per_page=2`);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-page'), '1');
    assert.equal(first.headers.get('x-per-page'), '2');
    assert.equal(first.headers.get('x-next-page'), '2');
    assert.equal(first.headers.get('x-total'), '6');
    assert.equal(first.headers.get('x-total-pages'), '3');
    assert.ok(first.headers.get('ratelimit-limit'));
    const link = first.headers.get('link') ?? '';
    assert.match(link, /[?&]page=2[^>]*>; rel="next"/);
    assert.match(link, /[?&]page=3[^>]*>; rel="last"/);
    const firstBody = (await first.json()) as Json[];
    assert.deepEqual(
      firstBody.map((m) => m.iid),
      [104, 103],
      'newest first',
    );
    assert.ok(!('head_pipeline' in firstBody[0]!), 'the list shape is the basic one');
    const last = await fetch(/<([^>]+)>; rel="last"/.exec(link)![1]!, { headers: auth });
    assert.equal(last.headers.get('x-next-page'), '');
    assert.deepEqual(
      ((await last.json()) as Json[]).map((m) => m.iid),
      [100, 7],
    );
    const all = await getJson(`/projects/${enc}/merge_requests?state=all&per_page=500`);
    assert.equal(all.length, 7, 'per_page is capped at 100, so everything fits');
    assert.equal((await get(`/projects/${enc}/merge_requests?per_page=500`)).headers.get('x-per-page'), '100');
  });

  test('answers 304 to a matching If-None-Match', async () => {
    const url = `/projects/${enc}/merge_requests/7`;
    const first = await get(url);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/"/);
    const again = await get(url, { ...auth, 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    fake.addNote('acme/sub/shop', 7, { body: 'touch', author: 'agent' });
    assert.equal((await get(url, { ...auth, 'if-none-match': etag })).status, 200, 'a note touches the MR');
  });

  test('failNext answers the given statuses (matched on "METHOD /path"), then serves normally', async () => {
    fake.failNext(/^GET \/api\/v4\/projects\/[^/]+\/merge_requests\/7$/, [502, 503]);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) seen.push((await get(`/projects/${enc}/merge_requests/7`)).status);
    assert.deepEqual(seen, [502, 503, 200]);
    fake.failNext(/^PUT /, [500]);
    const res = await send('PUT', `/projects/${enc}/merge_requests/7`, { add_labels: 'x' });
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { message: '500 Internal Server Error' });
  });

  test('jobs: retried ones are hidden unless include_retried; retry makes a new pending job', async () => {
    const { id: pipelineId } = fake.addPipeline('acme/sub/shop', { sha: SHA, ref: 'agent/fix-7' });
    const lint = fake.addJob('acme/sub/shop', pipelineId, { name: 'lint', stage: 'test', status: 'success' });
    const unit = fake.addJob('acme/sub/shop', pipelineId, {
      name: 'unit',
      stage: 'test',
      status: 'failed',
      failureReason: 'script_failure',
      trace: '\u001b[31mFAIL\u001b[0m\nsection_start:1700000000:step_script\r\u001b[0Kboom\n',
    });
    const flaky = fake.addJob('acme/sub/shop', pipelineId, {
      name: 'flaky',
      stage: 'test',
      status: 'failed',
      allowFailure: true,
    });
    const pipeline = await getJson(`/projects/${enc}/pipelines/${pipelineId}`);
    assert.equal(pipeline.status, 'failed', 'a failing job fails the pipeline; the allowed failure does not');
    assert.equal(pipeline.sha, SHA);
    assert.ok('detailed_status' in pipeline);

    const job = await getJson(`/projects/${enc}/jobs/${unit.id}`);
    assert.equal(job.name, 'unit');
    assert.equal(job.stage, 'test');
    assert.equal(job.status, 'failed');
    assert.equal(job.failure_reason, 'script_failure');
    assert.equal(job.allow_failure, false);
    assert.deepEqual(
      { id: job.pipeline.id, sha: job.pipeline.sha, ref: job.pipeline.ref, status: job.pipeline.status },
      { id: pipelineId, sha: SHA, ref: 'agent/fix-7', status: 'failed' },
    );
    assert.equal(job.commit.id, SHA);
    assert.match(job.web_url, new RegExp(`/acme/sub/shop/-/jobs/${unit.id}$`));
    assert.ok(!('failure_reason' in (await getJson(`/projects/${enc}/jobs/${lint.id}`))), 'only for failed jobs');

    const retried = await send('POST', `/projects/${enc}/jobs/${unit.id}/retry`, {});
    assert.equal(retried.status, 201);
    const fresh = (await retried.json()) as Json;
    assert.notEqual(fresh.id, unit.id);
    assert.equal(fresh.name, 'unit');
    assert.equal(fresh.status, 'pending');
    assert.equal(fake.state.jobs[unit.id]!.retried, true);
    const again = await send('POST', `/projects/${enc}/jobs/${unit.id}/retry`, {});
    assert.equal(again.status, 403, 'a retried job is not retryable');
    assert.equal((await send('POST', `/projects/${enc}/jobs/${fresh.id}/retry`, {})).status, 403, 'nor a pending one');

    const latest = await getJson(`/projects/${enc}/pipelines/${pipelineId}/jobs`);
    assert.deepEqual(latest.map((j: Json) => j.id).sort(), [lint.id, flaky.id, fresh.id].sort());
    const withRetried = await getJson(`/projects/${enc}/pipelines/${pipelineId}/jobs?include_retried=true`);
    assert.equal(withRetried.length, 4);
    const failedOnly = await getJson(`/projects/${enc}/pipelines/${pipelineId}/jobs?scope[]=failed`);
    assert.deepEqual(
      failedOnly.map((j: Json) => j.name),
      ['flaky'],
    );
    assert.equal((await getJson(`/projects/${enc}/pipelines/${pipelineId}`)).status, 'running');

    fake.setJobStatus('acme/sub/shop', fresh.id, 'success');
    assert.equal((await getJson(`/projects/${enc}/pipelines/${pipelineId}`)).status, 'success');

    const helper = fake.retryJob('acme/sub/shop', lint.id);
    assert.equal(fake.state.jobs[helper.id]!.status, 'pending');
    assert.equal((await getJson(`/projects/${enc}/pipelines/${pipelineId}`)).status, 'running');
  });

  test('pipeline retry retries each failed job and is recorded', async () => {
    const { id: pipelineId } = fake.addPipeline('acme/sub/shop', { sha: SHA2, ref: 'main' });
    const a = fake.addJob('acme/sub/shop', pipelineId, { name: 'a', status: 'failed' });
    const b = fake.addJob('acme/sub/shop', pipelineId, { name: 'b', status: 'success' });
    const c = fake.addJob('acme/sub/shop', pipelineId, { name: 'c', stage: 'deploy', status: 'skipped' });
    const res = await send('POST', `/projects/${projectId}/pipelines/${pipelineId}/retry`, {});
    assert.equal(res.status, 201);
    const body = (await res.json()) as Json;
    assert.equal(body.id, pipelineId);
    assert.notEqual(body.status, 'failed');
    assert.deepEqual(fake.state.pipelineRetries.at(-1), { path: 'acme/sub/shop', pipelineId });
    const jobs = (await getJson(`/projects/${enc}/pipelines/${pipelineId}/jobs`)) as Json[];
    const byName = Object.fromEntries(jobs.map((j) => [j.name, j]));
    assert.notEqual(byName.a.id, a.id);
    assert.equal(byName.a.status, 'pending');
    assert.equal(byName.b.id, b.id);
    assert.equal(byName.c.id, c.id);
    assert.equal(byName.c.status, 'created', 'a skipped later stage is processed again');
    assert.equal((await get(`/projects/${enc}/pipelines/999999`)).status, 404);
  });

  test('pipelines?sha=&ref= lists newest first', async () => {
    const sha = 'c'.repeat(40);
    const older = fake.addPipeline('acme/sub/shop', { sha, ref: 'feature' });
    const newer = fake.addPipeline('acme/sub/shop', { sha, ref: 'feature', source: 'merge_request_event' });
    fake.addPipeline('acme/sub/shop', { sha, ref: 'other' });
    const list = await getJson(`/projects/${enc}/pipelines?sha=${sha}&ref=feature`);
    assert.deepEqual(
      list.map((p: Json) => p.id),
      [newer.id, older.id],
    );
    assert.equal(list[0].source, 'merge_request_event');
    assert.match(list[0].web_url, new RegExp(`/-/pipelines/${newer.id}$`));
  });

  test('the trace is served as text/plain, escapes and section markers intact; none → 404', async () => {
    const { id: pipelineId } = fake.addPipeline('acme/sub/shop', { sha: SHA });
    const job = fake.addJob('acme/sub/shop', pipelineId, { name: 'log', status: 'failed' });
    assert.equal((await get(`/projects/${enc}/jobs/${job.id}/trace`)).status, 404);
    const text =
      'section_start:1:build\r\u001b[0K\u001b[32;1m$ npm test\u001b[0;m\nnot ok 1\nsection_end:2:build\r\u001b[0K\n';
    fake.setTrace(job.id, text);
    const res = await get(`/projects/${enc}/jobs/${job.id}/trace`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await res.text(), text);
    fake.setTrace(job.id, Buffer.from([0xff, 0x00, 0x41]));
    assert.deepEqual(
      [...new Uint8Array(await (await get(`/projects/${enc}/jobs/${job.id}/trace`)).arrayBuffer())],
      [0xff, 0x00, 0x41],
    );
  });

  test('notes: POST 201 (counted), listed newest first by default, only the author may edit', async () => {
    fake.addMergeRequest('acme/sub/shop', 8, { headSha: SHA, author: 'agent' });
    const other = fake.addNote('acme/sub/shop', 8, { body: 'from a human', author: 'maintainer-mary' });
    fake.addNote('acme/sub/shop', 8, { body: 'added 1 commit', author: 'agent', system: true });
    const before = (await getJson(`/projects/${enc}/merge_requests/8`)).updated_at;
    const created = fake.state.createdNotes;
    const res = await send('POST', `/projects/${enc}/merge_requests/8/notes`, { body: 'fixloop says hi' });
    assert.equal(res.status, 201);
    const note = (await res.json()) as Json;
    assert.equal(note.body, 'fixloop says hi');
    assert.equal(note.author.username, 'fixloop-bot');
    assert.equal(note.noteable_type, 'MergeRequest');
    assert.equal(note.noteable_iid, 8);
    assert.equal(note.system, false);
    for (const field of ['type', 'created_at', 'updated_at', 'noteable_id', 'resolvable', 'confidential', 'internal'])
      assert.ok(field in note, `missing ${field}`);
    assert.equal(fake.state.createdNotes, created + 1);
    assert.ok((await getJson(`/projects/${enc}/merge_requests/8`)).updated_at > before, 'a note touches its MR');

    const listed = await getJson(`/projects/${enc}/merge_requests/8/notes`);
    assert.deepEqual(
      listed.map((n: Json) => n.body),
      ['fixloop says hi', 'added 1 commit', 'from a human'],
    );
    const asc = await getJson(`/projects/${enc}/merge_requests/8/notes?sort=asc&order_by=created_at`);
    assert.equal(asc[0].body, 'from a human');
    assert.equal(asc[1].system, true);

    const edit = await send('PUT', `/projects/${enc}/merge_requests/8/notes/${note.id}`, { body: 'edited' });
    assert.equal(edit.status, 200);
    const edited = (await edit.json()) as Json;
    assert.equal(edited.body, 'edited');
    assert.ok(edited.updated_at > note.updated_at);
    const refused = await send('PUT', `/projects/${enc}/merge_requests/8/notes/${other.id}`, { body: 'hijack' });
    assert.equal(refused.status, 403);
    assert.deepEqual(await refused.json(), { message: '403 Forbidden' });
    assert.equal(fake.state.notes['acme/sub/shop!8']![0]!.body, 'from a human');
    assert.equal((await send('PUT', `/projects/${enc}/merge_requests/8/notes/1`, { body: 'x' })).status, 404);
    assert.equal((await send('POST', `/projects/${enc}/merge_requests/8/notes`, {})).status, 400);
  });

  test('discussions (decision 0077): threads and single notes oldest first, paged, with resolvable, resolved and position', async () => {
    fake.addMergeRequest('acme/sub/shop', 18, { headSha: SHA, author: 'agent' });
    fake.addNote('acme/sub/shop', 18, { body: 'Summary', author: 'coderabbit' });
    const diff = fake.addNote('acme/sub/shop', 18, {
      body: 'Null check',
      author: 'coderabbit',
      thread: { file: 'src/cart.ts', line: 42 },
    });
    fake.addNote('acme/sub/shop', 18, {
      body: 'Agreed',
      author: 'maintainer-mary',
      thread: { replyTo: diff.discussionId },
    });
    const general = fake.addNote('acme/sub/shop', 18, { body: 'Docs?', author: 'maintainer-mary', thread: {} });
    fake.resolveThread('acme/sub/shop', 18, general.discussionId, { by: 'fixloop-bot' });
    fake.addNote('acme/sub/shop', 18, { body: 'added 1 commit', author: 'agent', system: true });

    const listed = (await getJson(`/projects/${enc}/merge_requests/18/discussions`)) as Json[];
    assert.equal(listed.length, 4);
    assert.match(listed[1]!.id, /^[0-9a-f]{40}$/);
    assert.equal(listed[1]!.id, diff.discussionId);
    assert.deepEqual(
      listed.map((d) => [d.individual_note, d.notes.map((n: Json) => n.body)]),
      [
        [true, ['Summary']],
        [false, ['Null check', 'Agreed']],
        [false, ['Docs?']],
        [true, ['added 1 commit']],
      ],
    );
    const [summary, thread, started, system] = listed.map((d) => d.notes[0] as Json);
    assert.deepEqual([summary!.type, summary!.resolvable, 'resolved' in summary!], [null, false, false]);
    assert.deepEqual(
      [thread!.type, thread!.resolvable, thread!.resolved, thread!.resolved_by],
      ['DiffNote', true, false, null],
    );
    assert.equal(thread!.position.new_path, 'src/cart.ts');
    assert.equal(thread!.position.new_line, 42);
    assert.equal(thread!.position.head_sha, SHA);
    assert.equal(listed[1]!.notes[1].position.new_path, 'src/cart.ts', 'a reply sits where its thread does');
    assert.deepEqual(
      [started!.type, started!.resolved, started!.resolved_by.username],
      ['DiscussionNote', true, 'fixloop-bot'],
    );
    assert.equal(started!.position, undefined);
    assert.equal(system!.system, true);

    const page = await get(`/projects/${enc}/merge_requests/18/discussions?per_page=3&page=2`);
    assert.equal(page.headers.get('x-total'), '4');
    assert.equal(page.headers.get('x-next-page'), '');
    assert.deepEqual(
      ((await page.json()) as Json[]).map((d) => d.notes[0].body),
      ['added 1 commit'],
    );
  });

  test('labels: add_labels / remove_labels as JSON or form fields', async () => {
    fake.addMergeRequest('acme/sub/shop', 9, { headSha: SHA, labels: ['keep', 'fixloop::running'] });
    const json = await send('PUT', `/projects/${enc}/merge_requests/9`, {
      add_labels: 'fixloop::gave-up,b-label',
      remove_labels: 'fixloop::running',
    });
    assert.equal(json.status, 200);
    assert.deepEqual(((await json.json()) as Json).labels, ['b-label', 'fixloop::gave-up', 'keep']);
    const form = await fetch(`${api}/projects/${enc}/merge_requests/9`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ remove_labels: 'b-label,keep' }).toString(),
    });
    assert.deepEqual(((await form.json()) as Json).labels, ['fixloop::gave-up']);
    assert.deepEqual(fake.state.labels['acme/sub/shop!9'], ['fixloop::gave-up']);
  });

  test('commit statuses: POST 201, listed with the jobs; a status without a pipeline gets an external one', async () => {
    const sha = 'd'.repeat(40);
    const res = await send('POST', `/projects/${enc}/statuses/${sha}`, {
      state: 'pending',
      name: 'fixloop',
      description: 'watching CI',
      target_url: 'https://fixloop.example/runs/1',
      ref: 'agent/fix-7',
    });
    assert.equal(res.status, 201);
    const status = (await res.json()) as Json;
    assert.equal(status.status, 'pending');
    assert.equal(status.name, 'fixloop');
    assert.equal(status.sha, sha);
    assert.equal(status.ref, 'agent/fix-7');
    assert.equal(status.author.username, 'fixloop-bot');
    const external = fake.state.pipelines[status.pipeline_id]!;
    assert.equal(external.source, 'external');
    assert.equal(external.status, 'pending');

    const twice = await send('POST', `/projects/${enc}/statuses/${sha}`, {
      state: 'pending',
      name: 'fixloop',
      ref: 'agent/fix-7',
    });
    assert.equal(twice.status, 400, 'GitLab refuses a transition to the state a status is already in');
    const done = await send('POST', `/projects/${enc}/statuses/${sha}`, {
      state: 'success',
      context: 'fixloop',
      description: 'done',
      ref: 'agent/fix-7',
    });
    assert.equal(done.status, 201);
    assert.equal(((await done.json()) as Json).id, status.id, 'a running/pending status of that name is updated');
    const bad = await send('POST', `/projects/${enc}/statuses/${sha}`, { state: 'error' });
    assert.equal(bad.status, 400);

    const { id: pipelineId } = fake.addPipeline('acme/sub/shop', { sha, ref: 'agent/fix-7' });
    fake.addJob('acme/sub/shop', pipelineId, { name: 'unit', status: 'success' });
    const onCi = await send('POST', `/projects/${enc}/statuses/${sha}`, {
      state: 'failed',
      name: 'fixloop',
      ref: 'agent/fix-7',
    });
    assert.equal(
      ((await onCi.json()) as Json).pipeline_id,
      pipelineId,
      'attaches to the newest pipeline of sha and ref',
    );
    assert.equal(
      fake.state.pipelines[pipelineId]!.status,
      'failed',
      'an external status counts in the pipeline status',
    );

    const listed = (await getJson(`/projects/${enc}/repository/commits/${sha}/statuses`)) as Json[];
    assert.deepEqual(
      listed.map((s) => [s.name, s.status]),
      [
        ['fixloop', 'success'],
        ['unit', 'success'],
        ['fixloop', 'failed'],
      ],
    );
    for (const field of [
      'id',
      'sha',
      'ref',
      'status',
      'name',
      'description',
      'target_url',
      'created_at',
      'started_at',
      'finished_at',
      'author',
      'allow_failure',
    ])
      assert.ok(field in listed[0]!, `missing ${field}`);
    assert.deepEqual(
      fake.state.statuses.filter((s) => s.sha === sha).map((s) => [s.name, s.state, s.description]),
      [
        ['fixloop', 'pending', 'watching CI'],
        ['fixloop', 'success', 'done'],
        ['fixloop', 'failed', null],
      ],
      'state.statuses logs every accepted post',
    );
    const byName = await getJson(`/projects/${enc}/repository/commits/${sha}/statuses?name=unit`);
    assert.equal(byName.length, 1);
  });

  test('reviewers, members, compare, branches', async () => {
    fake.setReviewerState('acme/sub/shop', 7, 'maintainer-mary', 'requested_changes');
    const reviewers = await getJson(`/projects/${enc}/merge_requests/7/reviewers`);
    assert.equal(reviewers.length, 1);
    assert.equal(reviewers[0].user.username, 'maintainer-mary');
    assert.equal(reviewers[0].state, 'requested_changes');
    assert.ok(reviewers[0].created_at);
    const mr = await getJson(`/projects/${enc}/merge_requests/7`);
    assert.equal(mr.reviewers[0].username, 'maintainer-mary');
    assert.equal(mr.detailed_merge_status, 'requested_changes');
    fake.setReviewerState('acme/sub/shop', 7, 'maintainer-mary', 'approved');
    assert.equal((await getJson(`/projects/${enc}/merge_requests/7/reviewers`))[0].state, 'approved');

    const member = await getJson(`/projects/${enc}/members/all/77`);
    assert.equal(member.access_level, 30);
    assert.equal(member.username, 'fixloop-bot');
    const agentId = (await getJson('/users?username=agent'))[0].id;
    assert.equal((await get(`/projects/${enc}/members/all/${agentId}`)).status, 404);
    const found = await getJson(`/projects/${enc}/members/all?query=mary`);
    assert.deepEqual(
      found.map((m: Json) => [m.username, m.access_level]),
      [['maintainer-mary', 40]],
    );

    fake.setCompare('acme/sub/shop', SHA, SHA2, [
      { old_path: 'a.ts', new_path: 'a.ts', diff: '@@ -1 +1 @@\n-a\n+b\n' },
      { old_path: 'old.ts', new_path: 'new.ts', renamed_file: true, diff: '' },
    ]);
    const cmp = await getJson(`/projects/${enc}/repository/compare?from=${SHA}&to=${SHA2}&straight=false`);
    assert.equal(cmp.compare_timeout, false);
    assert.equal(cmp.compare_same_ref, false);
    assert.equal(cmp.commit.id, SHA2);
    assert.equal(cmp.diffs.length, 2);
    assert.deepEqual(
      [cmp.diffs[1].old_path, cmp.diffs[1].new_path, cmp.diffs[1].renamed_file, cmp.diffs[1].new_file],
      ['old.ts', 'new.ts', true, false],
    );
    assert.ok(cmp.web_url);
    assert.equal((await get(`/projects/${enc}/repository/compare?from=${SHA2}&to=${SHA}`)).status, 404);

    const main = await getJson(`/projects/${enc}/repository/branches/main`);
    assert.equal(main.name, 'main');
    assert.equal(main.protected, true);
    assert.equal(main.default, true);
    assert.match(main.commit.id, /^[0-9a-f]{40}$/);
    const source = await getJson(`/projects/${enc}/repository/branches/${encodeURIComponent('agent/fix-7')}`);
    assert.equal(source.commit.id, SHA);
    assert.equal(source.protected, false);
    assert.equal((await get(`/projects/${enc}/repository/branches/nope`)).status, 404);
  });

  test('records every request with method, path (as sent) and headers', async () => {
    const n = fake.requests.length;
    await get(`/projects/${enc}`);
    const r = fake.requests[n]!;
    assert.equal(r.method, 'GET');
    assert.equal(r.path, `/api/v4/projects/${enc}`);
    assert.equal(r.headers['private-token'], token);
    assert.equal(r.status, 200);
  });

  test('strictAccess: a private project hides from non-members and checks roles for writes', async () => {
    fake.addProject('secret/repo', { strictAccess: true });
    fake.addMergeRequest('secret/repo', 1, { headSha: SHA });
    const guestToken = fake.addToken('guest-gus');
    fake.addMember('secret/repo', 'guest-gus', 10);
    const path = `/projects/${encodeURIComponent('secret/repo')}`;
    assert.equal((await get(path)).status, 404, 'fixloop-bot is no member');
    const guest = { 'private-token': guestToken };
    assert.equal((await get(path, guest)).status, 200);
    assert.equal((await send('POST', `${path}/statuses/${SHA}`, { state: 'running' }, guest)).status, 403);
    assert.equal((await send('POST', `${path}/merge_requests/1/notes`, { body: 'hi' }, guest)).status, 201);
  });
});

describe('fake GitLab latency', () => {
  test('latencyMs delays every answer', async () => {
    const fake = await startFakeGitLab({ latencyMs: 60 });
    try {
      const token = fake.addToken('slow');
      const started = Date.now();
      const res = await fetch(`${fake.url}/api/v4/user`, { headers: { 'private-token': token } });
      assert.equal(res.status, 200);
      assert.ok(Date.now() - started >= 55);
    } finally {
      await fake.close();
    }
  });
});
