// The fake GitLab's pipeline creation and CI ID tokens (issue 35 item 6) keep GitLab's documented
// rules: a ref the project lacks or a malformed variable is refused with 400, a Reporter may not start
// a pipeline on a private project, and the instance publishes the key its ID tokens verify with at the
// `jwks_uri` its OpenID configuration names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startFakeGitLab, type FakeGitLab } from './server.js';

describe('fake GitLab: POST /projects/:id/pipeline and ID tokens', () => {
  let fake: FakeGitLab;
  let token: string;
  let reporter: string;
  before(async () => {
    fake = await startFakeGitLab();
    token = fake.addToken('fixloop-bot');
    reporter = fake.addToken('someone');
    fake.addProject('acme/shop', { id: 42, strictAccess: true });
    fake.addMember('acme/shop', 'fixloop-bot', 30);
    fake.addMember('acme/shop', 'someone', 20);
  });
  after(() => fake.close());

  const post = (t: string, body: unknown) =>
    fetch(`${fake.url}/api/v4/projects/42/pipeline`, {
      method: 'POST',
      headers: { 'private-token': t, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('201 with the pipeline (source api, status created) on the default branch; the variables kept', async () => {
    const res = await post(token, { ref: 'main', variables: [{ key: 'A_B', value: 'x', variable_type: 'file' }] });
    assert.equal(res.status, 201);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.ref, 'main');
    assert.equal(body.source, 'api');
    assert.equal(body.status, 'created');
    assert.deepEqual(fake.createdPipelines().at(-1)!.variables, [{ key: 'A_B', value: 'x', variable_type: 'file' }]);
  });

  it('400 for a ref the project lacks and for a malformed variable; 403 for a Reporter', async () => {
    const missing = await post(token, { ref: 'nope' });
    assert.equal(missing.status, 400);
    assert.deepEqual(await missing.json(), { message: { base: ['Reference not found'] } });
    assert.equal((await post(token, { ref: 'main', variables: [{ key: 'a-b', value: 'x' }] })).status, 400);
    assert.equal((await post(token, { ref: 'main', variables: { A: 'x' } })).status, 400);
    assert.equal((await post(reporter, { ref: 'main' })).status, 403);
  });

  it("an ID token verifies with the keys at the configuration's jwks_uri, and names the instance as issuer", async () => {
    const config = (await (await fetch(`${fake.url}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
      jwks_uri: string;
    };
    assert.equal(config.issuer, fake.url);
    assert.equal(config.jwks_uri, `${fake.url}/oauth/discovery/keys`);
    const jwt = await fake.issueIdToken({
      aud: 'https://fixloop.example',
      project_path: 'acme/shop',
      pipeline_id: '7',
    });
    const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL(config.jwks_uri)), {
      issuer: fake.url,
      audience: 'https://fixloop.example',
    });
    assert.equal(payload.project_path, 'acme/shop');
    assert.equal(payload.pipeline_id, '7');
    const stranger = await fake.issueIdToken(
      { aud: 'https://fixloop.example', project_path: 'acme/shop', pipeline_id: '7' },
      { stranger: true },
    );
    await assert.rejects(() => jwtVerify(stranger, createRemoteJWKSet(new URL(config.jwks_uri))));
  });
});
