/**
 * Trusted publishing across processes: a `larder serve` child on a data directory sees the CLI's publisher
 * add and remove at its next exchange; and two larders sharing one PostgreSQL: a publisher the CLI adds or
 * removes counts on both at once, an OIDC token exchanged on one is refused on the other (the jti is
 * shared), and a token minted on one uploads through the other.
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel } from '../fixtures/dists.js';
import { addAliceWithRelease } from '../helpers/alice-release.js';
import { startChildServer } from '../helpers/child-server.js';
import { assertCliOk, runLarderCli } from '../helpers/cli.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { githubClaims, startIssuer, type TestIssuer } from '../helpers/oidc-issuer.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish, uploadForm } from '../helpers/upload-form.js';

describe('trusted publishing with a larder serve process', () => {
  const dir = suiteTempDir('larder-oidc-child-');

  test("the server sees the CLI's publisher add and remove at its next exchange", async () => {
    const issuer = await startIssuer();
    await issuer.addKey('RS256');
    const data = join(dir, 'data');
    const env = { LARDER_DATA: data, LARDER_OIDC_ISSUERS: issuer.url };
    assertCliOk(await runLarderCli(['user', 'add', 'alice', '--password-stdin'], { env, input: 'alice-password\n' }));
    const server = await startChildServer(['--data', data, '--upstream', 'none'], { LARDER_OIDC_ISSUERS: issuer.url });
    try {
      await publish(server.url, basicAuth('alice', 'alice-password'), await buildWheel(dir, { name: 'widgets', version: '1.0' }));
      const mint = async () => {
        const jwt = await issuer.sign(githubClaims('acme/widgets'), { now: Date.now() });
        const res = await fetch(`${server.url}/_/oidc/mint-token`, { method: 'POST', body: JSON.stringify({ token: jwt }) });
        return { status: res.status, body: (await res.json()) as { errors?: { code: string }[] } };
      };
      assert.equal((await mint()).body.errors?.[0]?.code, 'invalid-publisher');
      const added = await runLarderCli(['publisher', 'add', 'widgets', '--issuer', issuer.url, '--claim', 'repository=acme/widgets'], { env });
      assertCliOk(added);
      assert.equal((await mint()).status, 200);
      assertCliOk(await runLarderCli(['publisher', 'remove', 'widgets', added.stdout.split('\n')[0]!], { env }));
      assert.equal((await mint()).body.errors?.[0]?.code, 'invalid-publisher');
    } finally {
      await server.stop('SIGTERM');
      await issuer.close();
    }
  });
});

describe('trusted publishing on two nodes sharing PostgreSQL', () => {
  const dir = suiteTempDir('larder-oidc-nodes-');
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let postgres: TestPostgres;
  let issuer: TestIssuer;
  let a: TestLarder;
  let b: TestLarder;
  let env: NodeJS.ProcessEnv;

  const mint = async (node: TestLarder, token: string) => {
    const res = await fetch(`${node.url}/_/oidc/mint-token`, { method: 'POST', body: JSON.stringify({ token }) });
    return { status: res.status, body: (await res.json()) as { token?: string; errors?: { code: string }[] } };
  };

  before(async () => {
    postgres = await startPostgres();
    issuer = await startIssuer();
    await issuer.addKey('ES256');
    const databaseUrl = await postgres.createDatabase();
    const settings = { databaseUrl, oidcIssuers: [issuer.url] };
    a = await startLarder(settings, await mkdtemp(join(tmpdir(), 'larder-node-a-')), { clock });
    b = await startLarder(settings, await mkdtemp(join(tmpdir(), 'larder-node-b-')), { clock });
    env = { LARDER_DATA: join(dir, 'cli-data'), LARDER_DATABASE_URL: databaseUrl, LARDER_OIDC_ISSUERS: issuer.url };
    await addAliceWithRelease(a, dir, { name: 'widgets', version: '1.0' });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await issuer?.close();
    await postgres?.cleanup();
  });

  test('publishers, used tokens and minted tokens are shared', async () => {
    const added = await runLarderCli(['publisher', 'add', 'widgets', '--issuer', issuer.url, '--claim', 'repository=acme/widgets'], { env });
    assertCliOk(added);
    const id = added.stdout.trim().split('\n')[0]!;
    const jwt = await issuer.sign(githubClaims('acme/widgets'), { now: clock.now() });
    const minted = await mint(a, jwt);
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    const replay = await mint(b, jwt);
    assert.equal(replay.status, 422);
    assert.equal(replay.body.errors?.[0]?.code, 'invalid-reuse-token');

    const wheel = await buildWheel(dir, { name: 'widgets', version: '1.1' });
    const up = await fetch(`${b.url}/legacy/`, {
      method: 'POST',
      headers: { Authorization: basicAuth('__token__', minted.body.token!) },
      body: await uploadForm(wheel),
    });
    assert.equal(up.status, 200, await up.text());
    assert.equal((await a.larder.meta.getFile('widgets', wheel.filename))?.publisher?.claims.repository, 'acme/widgets');

    assertCliOk(await runLarderCli(['publisher', 'remove', 'widgets', id], { env }));
    const after = await mint(b, await issuer.sign(githubClaims('acme/widgets'), { now: clock.now() }));
    assert.equal(after.body.errors?.[0]?.code, 'invalid-publisher');
  });
});
