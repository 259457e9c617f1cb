/**
 * Trusted publishing against a real larder and an OIDC issuer of the test's own on loopback: publishers added
 * and removed with the CLI while the server runs, tokens exchanged at /_/oidc/mint-token, the minted token used
 * for uploads (twine's form over fetch; test/e2e/trusted-publishing-twine.test.ts runs twine itself), and every
 * refusal a 422 with warehouse's code and no token. The server's clock is moved by hand.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { buildWheel } from '../fixtures/dists.js';
import { ALICE_AUTH, addAliceWithRelease } from '../helpers/alice-release.js';
import { assertCliOk, runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { githubClaims, startIssuer, type TestIssuer } from '../helpers/oidc-issuer.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish, uploadForm } from '../helpers/upload-form.js';
import { cookieOf, formToken, postLogin } from '../helpers/web-forms.js';

const WIDGETS_WORKFLOW = 'acme/widgets/.github/workflows/release.yml@refs/heads/main';

interface MintAnswer {
  status: number;
  body: { success?: boolean; token?: string; expires?: number; message?: string; errors?: { code: string; description: string }[] };
}

describe('trusted publishing', () => {
  const dir = suiteTempDir('larder-oidc-');
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let issuer: TestIssuer;
  /** Listed in LARDER_OIDC_ISSUERS, pinned with --jwks: never asked. */
  let pinnedIssuer: TestIssuer;
  /** Not listed: never asked. */
  let strangerIssuer: TestIssuer;
  let server: TestLarder;
  let env: NodeJS.ProcessEnv;

  const cli = (args: string[]) => runLarderCli(args, { env });
  const mint = async (body: unknown, raw = false): Promise<MintAnswer> => {
    const res = await fetch(`${server.url}/_/oidc/mint-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw ? (body as string) : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as MintAnswer['body'] };
  };
  const refusedWith = (answer: MintAnswer, code: string, description?: RegExp) => {
    assert.equal(answer.status, 422, JSON.stringify(answer.body));
    assert.equal(answer.body.message, 'Token request failed');
    assert.equal(answer.body.token, undefined);
    assert.equal(answer.body.errors?.[0]?.code, code, JSON.stringify(answer.body));
    if (description) assert.match(answer.body.errors![0]!.description, description);
  };
  const widgetsToken = (extra: Record<string, unknown> = {}, options: Parameters<TestIssuer['sign']>[1] = { now: clock.now() }) =>
    issuer.sign({ ...githubClaims('acme/widgets'), ...extra }, options);
  const upload = async (token: string, name: string, version: string) => {
    const wheel = await buildWheel(dir, { name, version });
    const res = await fetch(`${server.url}/legacy/`, {
      method: 'POST',
      headers: { Authorization: basicAuth('__token__', token) },
      body: await uploadForm(wheel),
    });
    return { status: res.status, text: await res.text(), wheel };
  };
  const addPublisher = async (args: string[]) => {
    const added = await cli(['publisher', 'add', ...args]);
    assertCliOk(added);
    const id = added.stdout.trim();
    assert.match(id, /^[0-9a-f]{12}$/);
    return id;
  };

  before(async () => {
    [issuer, pinnedIssuer, strangerIssuer] = await Promise.all([startIssuer(), startIssuer(), startIssuer()]);
    await issuer.addKey('RS256');
    await pinnedIssuer.addKey('ES256');
    await strangerIssuer.addKey('RS256');
    const issuers = [issuer.url, pinnedIssuer.url];
    server = await startLarder({ oidcIssuers: issuers }, undefined, { clock });
    env = { LARDER_DATA: server.data, LARDER_OIDC_ISSUERS: issuers.join(',') };
    await addAliceWithRelease(server, dir, { name: 'widgets', version: '1.0' });
    await publish(server.url, ALICE_AUTH, await buildWheel(dir, { name: 'gadgets', version: '1.0' }));
  });
  after(async () => {
    await server?.close();
    await Promise.all([issuer, pinnedIssuer, strangerIssuer].map((i) => i?.close()));
  });

  test('the audience endpoint answers as pypi.org', async () => {
    const res = await fetch(`${server.url}/_/oidc/audience`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { audience: 'larder' });
  });

  test('publisher add prints the id; list shows id, project, issuer and every claim', async () => {
    const id = await addPublisher(['widgets', '--issuer', issuer.url, '--claim', 'repository=acme/widgets', '--claim', `workflow_ref=${WIDGETS_WORKFLOW}`]);
    const listed = await cli(['publisher', 'list', 'widgets']);
    assertCliOk(listed);
    const row = listed.stdout.split('\n').find((line) => line.startsWith(id)) ?? '';
    assert.ok(row.includes('widgets') && row.includes(issuer.url), listed.stdout);
    assert.ok(row.includes('repository=acme/widgets') && row.includes(`workflow_ref=${WIDGETS_WORKFLOW}`), listed.stdout);
    const missing = await cli(['publisher', 'add', 'no-such-project', '--issuer', issuer.url, '--claim', 'repository=x/y']);
    assert.equal(missing.code, 2);
    const noClaim = await cli(['publisher', 'add', 'widgets', '--issuer', issuer.url]);
    assert.equal(noClaim.code, 2);
    const plainHttp = await cli(['publisher', 'add', 'widgets', '--issuer', 'http://issuer.example', '--claim', 'repository=x/y']);
    assert.equal(plainHttp.code, 2);
    assert.match(plainHttp.stderr, /http:\/\/ only on a loopback/);
  });

  test('a good token mints an upload-only token for the project, used once, and the upload records the publisher', async () => {
    const jwt = await widgetsToken();
    const minted = await mint({ token: jwt });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    assert.equal(minted.body.success, true);
    assert.equal(minted.body.expires, Math.floor(clock.now() / 1000) + 15 * 60);
    const token = minted.body.token!;
    refusedWith(await mint({ token: jwt }), 'invalid-reuse-token');
    const withoutJti = await widgetsToken({}, { now: clock.now(), omit: ['jti'] });
    assert.equal((await mint({ token: withoutJti })).status, 200);
    refusedWith(await mint({ token: withoutJti }), 'invalid-reuse-token');

    const up = await upload(token, 'widgets', '1.1');
    assert.equal(up.status, 200, up.text);
    const file = await server.larder.meta.getFile('widgets', up.wheel.filename);
    assert.deepEqual(file?.publisher?.issuer, issuer.url);
    assert.equal(file?.publisher?.claims.repository, 'acme/widgets');
    assert.equal(file?.publisher?.claims.workflow_ref, WIDGETS_WORKFLOW);
    const page = await (await fetch(`${server.url}/project/widgets/1.1/`)).text();
    const facts = page.slice(page.indexOf('<dt>Published by</dt>'));
    assert.ok(facts.includes(issuer.url) && facts.includes('repository=acme/widgets'), 'the release page names the publisher');
    assert.ok(!(await (await fetch(`${server.url}/project/widgets/1.0/`)).text()).includes('Published by'));

    const elsewhere = await upload(token, 'gadgets', '1.1');
    assert.equal(elsewhere.status, 403, elsewhere.text);
    const create = await upload(token, 'brand-new', '1.0');
    assert.equal(create.status, 403, create.text);
    assert.equal(await server.larder.meta.getProject('brand-new'), undefined);
    const yank = await fetch(`${server.url}/api/projects/widgets/releases/1.1/yank`, {
      method: 'POST',
      headers: { Authorization: basicAuth('__token__', token) },
    });
    assert.equal(yank.status, 403);

    clock.advance(15 * 60_000);
    const expired = await upload(token, 'widgets', '1.2');
    assert.equal(expired.status, 403, expired.text);
    assert.match(expired.text, /expired/);
  });

  test('bad signature, wrong audience, expired, future iat or nbf, no exp: invalid-token and no token', async () => {
    const now = clock.now();
    const forger = await issuer.addKey('RS256', false);
    refusedWith(await mint({ token: await widgetsToken({}, { now, key: { ...forger, kid: 'key-1' } }) }), 'invalid-token', /signature/);
    refusedWith(await mint({ token: await widgetsToken({ aud: 'pypi' }) }), 'invalid-token', /aud/);
    refusedWith(await mint({ token: await widgetsToken({ exp: Math.floor(now / 1000) - 61 }) }), 'invalid-token', /exp/);
    refusedWith(await mint({ token: await widgetsToken({ iat: Math.floor(now / 1000) + 120 }) }), 'invalid-token', /iat/);
    refusedWith(await mint({ token: await widgetsToken({ nbf: Math.floor(now / 1000) + 120 }) }), 'invalid-token', /nbf/);
    refusedWith(await mint({ token: await widgetsToken({}, { now, omit: ['exp'] }) }), 'invalid-token', /exp/);
    // Within the 60 s leeway: accepted.
    assert.equal((await mint({ token: await widgetsToken({ exp: Math.floor(now / 1000) - 30 }) })).status, 200);
  });

  test('alg none and HMAC are refused', async () => {
    const payload = { ...githubClaims('acme/widgets'), iss: issuer.url, iat: Math.floor(clock.now() / 1000), exp: Math.floor(clock.now() / 1000) + 300 };
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    refusedWith(await mint({ token: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.` }), 'invalid-token', /algorithm/);
    const hmac = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).sign(new TextEncoder().encode('public-key-as-secret'));
    refusedWith(await mint({ token: hmac }), 'invalid-token', /algorithm/);
  });

  test('an issuer not in LARDER_OIDC_ISSUERS is refused without asking it; a bad body is invalid-payload', async () => {
    refusedWith(await mint({ token: await strangerIssuer.sign(githubClaims('acme/widgets'), { now: clock.now() }) }), 'invalid-payload', /issuer/);
    assert.deepEqual(strangerIssuer.requests, { discovery: 0, jwks: 0 });
    refusedWith(await mint('not json', true), 'invalid-payload');
    refusedWith(await mint({ token: 5 }), 'invalid-payload');
    refusedWith(await mint([]), 'invalid-payload');
    refusedWith(await mint({ token: 'not.a.jwt' }), 'invalid-payload');
    refusedWith(await mint({ token: 'x'.repeat(40_000) }), 'invalid-payload');
  });

  test('claims that match no publisher: invalid-publisher', async () => {
    refusedWith(await mint({ token: await issuer.sign(githubClaims('acme/other'), { now: clock.now() }) }), 'invalid-publisher');
    refusedWith(await mint({ token: await issuer.sign(githubClaims('acme/widgets', 'ci.yml'), { now: clock.now() }) }), 'invalid-publisher');
  });

  test('a token matching publishers of two projects yields one token for both', async () => {
    const id = await addPublisher(['gadgets', '--issuer', issuer.url, '--claim', 'repository=acme/widgets']);
    const minted = await mint({ token: await widgetsToken() });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    assert.equal((await upload(minted.body.token!, 'widgets', '2.0')).status, 200);
    assert.equal((await upload(minted.body.token!, 'gadgets', '2.0')).status, 200);
    assertCliOk(await cli(['publisher', 'remove', 'gadgets', id]));
  });

  test('a removed publisher mints nothing, at once on the running server', async () => {
    const listed = await cli(['publisher', 'list']);
    const widgetsRows = listed.stdout.split('\n').filter((line) => / widgets /.test(line));
    assert.equal(widgetsRows.length, 1, listed.stdout);
    const id = widgetsRows[0]!.split(/\s+/)[0]!;
    assertCliOk(await cli(['publisher', 'remove', 'widgets', id]));
    refusedWith(await mint({ token: await widgetsToken() }), 'invalid-publisher');
    const again = await cli(['publisher', 'remove', 'widgets', id]);
    assert.equal(again.code, 2);
    await addPublisher(['widgets', '--issuer', issuer.url, '--claim', 'repository=acme/widgets']);
    assert.equal((await mint({ token: await widgetsToken() })).status, 200);
  });

  test('owners manage publishers over /api; others and minted tokens may not', async () => {
    await server.addUser('bob', 'bob-password');
    const api = (method: string, path: string, auth: string, body?: unknown) =>
      fetch(`${server.url}/api/projects/${path}`, {
        method,
        headers: { Authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const added = await api('POST', 'widgets/publishers', ALICE_AUTH, { issuer: issuer.url, claims: { repository: 'acme/api' } });
    assert.equal(added.status, 201);
    const { id } = (await added.json()) as { id: string };
    const listed = (await (await api('GET', 'widgets/publishers', ALICE_AUTH)).json()) as { publishers: { id: string; claims: Record<string, string> }[] };
    assert.deepEqual(listed.publishers.find((p) => p.id === id)?.claims, { repository: 'acme/api' });
    const minted = await mint({ token: await issuer.sign(githubClaims('acme/api'), { now: clock.now() }) });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    const byMinted = await api('POST', 'widgets/publishers', basicAuth('__token__', minted.body.token!), { issuer: issuer.url, claims: { repository: 'x/y' } });
    assert.equal(byMinted.status, 403);
    assert.equal((await api('GET', 'widgets/publishers', basicAuth('bob', 'bob-password'))).status, 403);
    assert.equal((await api('DELETE', `widgets/publishers/${id}`, basicAuth('bob', 'bob-password'))).status, 403);
    assert.equal((await api('POST', 'widgets/publishers', ALICE_AUTH, { issuer: issuer.url, claims: {} })).status, 400);
    assert.equal((await api('POST', 'widgets/publishers', ALICE_AUTH, { issuer: 'ftp://x', claims: { a: 'b' } })).status, 400);
    assert.equal((await api('DELETE', `widgets/publishers/${id}`, ALICE_AUTH)).status, 200);
    assert.equal((await api('DELETE', `widgets/publishers/${id}`, ALICE_AUTH)).status, 404);
    refusedWith(await mint({ token: await issuer.sign(githubClaims('acme/api'), { now: clock.now() }) }), 'invalid-publisher');
  });

  test('owners manage publishers on the web page; others get 403', async () => {
    const login = await postLogin(server.url, 'alice', 'alice-password', '/');
    const cookie = cookieOf(login);
    const path = `${server.url}/manage/project/widgets/settings/publishing/`;
    const pageOf = async () => (await fetch(path, { headers: { Cookie: cookie } })).text();
    const before = await pageOf();
    assert.match(before, /Trusted publishers of widgets/);
    const add = (claims: string) =>
      fetch(path, {
        method: 'POST',
        headers: { Cookie: cookie },
        body: new URLSearchParams({ csrf: formToken(before), issuer: issuer.url, claims }),
        redirect: 'manual',
      });
    const refused = await add('not-a-claim');
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /is not KEY=VALUE/);
    const added = await add('repository=acme/web\nref=refs/heads/main');
    assert.equal(added.status, 303);
    const listed = await pageOf();
    const row = listed.split('<tr>').find((r) => r.includes('repository=acme/web')) ?? '';
    const id = /<code>([0-9a-f]{12})<\/code>/.exec(row)?.[1];
    assert.ok(id, 'the page lists the new publisher');
    assert.equal((await mint({ token: await issuer.sign({ ...githubClaims('acme/web'), ref: 'refs/heads/main' }, { now: clock.now() }) })).status, 200);
    const removed = await fetch(`${path}${id}/remove`, {
      method: 'POST',
      headers: { Cookie: cookie },
      body: new URLSearchParams({ csrf: formToken(listed) }),
      redirect: 'manual',
    });
    assert.equal(removed.status, 303);
    const after = await pageOf();
    assert.ok(!after.includes(id!) && after.includes('repository=acme/widgets'), 'only that publisher is gone');
    const bob = await fetch(path, { headers: { Authorization: basicAuth('bob', 'bob-password') } });
    assert.equal(bob.status, 403);
  });

  test('removing a project removes its publishers: a project created later under the name inherits none', async () => {
    await publish(server.url, ALICE_AUTH, await buildWheel(dir, { name: 'doomed', version: '1.0' }));
    await addPublisher(['doomed', '--issuer', issuer.url, '--claim', 'repository=acme/doomed']);
    assertCliOk(await cli(['project', 'remove', 'doomed']));
    assert.equal((await cli(['publisher', 'list'])).stdout.includes('doomed'), false);
    await publish(server.url, ALICE_AUTH, await buildWheel(dir, { name: 'doomed', version: '2.0' }));
    refusedWith(await mint({ token: await issuer.sign(githubClaims('acme/doomed'), { now: clock.now() }) }), 'invalid-publisher');
  });

  test('a new kid fetches the keys again, at most once a minute (ES256)', async () => {
    const fetched = issuer.requests.jwks;
    assert.ok(fetched >= 1);
    const rotated = await issuer.addKey('ES256', false);
    refusedWith(await mint({ token: await widgetsToken({}, { now: clock.now(), key: rotated }) }), 'invalid-token');
    refusedWith(await mint({ token: await widgetsToken({}, { now: clock.now(), key: rotated }) }), 'invalid-token');
    // The key set was asked for again once at most (the last fetch may be a minute old): not per token.
    assert.ok(issuer.requests.jwks <= fetched + 1, `${issuer.requests.jwks} fetches`);
    const afterTries = issuer.requests.jwks;
    issuer.publish(rotated);
    refusedWith(await mint({ token: await widgetsToken({}, { now: clock.now(), key: rotated }) }), 'invalid-token');
    assert.equal(issuer.requests.jwks, afterTries);
    clock.advance(61_000);
    const minted = await mint({ token: await widgetsToken({}, { now: clock.now(), key: rotated }) });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    assert.equal(issuer.requests.jwks, afterTries + 1);
  });

  test('an issuer pinned with --jwks uses only those keys and is never asked', async () => {
    const jwksFile = join(dir, 'pinned.jwks.json');
    await writeFile(jwksFile, JSON.stringify(pinnedIssuer.jwks()));
    await addPublisher(['widgets', '--issuer', pinnedIssuer.url, '--claim', 'project_path=acme/widgets', '--jwks', jwksFile]);
    const claims = { aud: 'larder', sub: 'project_path:acme/widgets:ref_type:branch:ref:main', project_path: 'acme/widgets', ref: 'main' };
    const minted = await mint({ token: await pinnedIssuer.sign(claims, { now: clock.now() }) });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    const other = await pinnedIssuer.addKey('ES256');
    refusedWith(await mint({ token: await pinnedIssuer.sign(claims, { now: clock.now(), key: other }) }), 'invalid-token');
    assert.deepEqual(pinnedIssuer.requests, { discovery: 0, jwks: 0 });
    const up = await upload(minted.body.token!, 'widgets', '3.0');
    assert.equal(up.status, 200, up.text);
    const file = await server.larder.meta.getFile('widgets', up.wheel.filename);
    assert.equal(file?.publisher?.claims.project_path, 'acme/widgets');
  });
});
