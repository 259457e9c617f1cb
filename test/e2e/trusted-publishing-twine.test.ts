/**
 * Trusted publishing as a CI job does it (README "Trusted publishing", the GitLab example): the OIDC token from
 * an issuer of the test's own on loopback is exchanged with curl at /_/oidc/mint-token, then Debian's twine
 * uploads with `-u __token__ -p <minted>`. (twine 6.1+ runs the exchange itself only inside GitHub Actions.)
 * Needs twine and curl: skipped without them, failed without them under CI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findClients, requireClients, runCommand, twineUpload, type Clients } from '../fixtures/clients.js';
import { buildWheel } from '../fixtures/dists.js';
import { ALICE_AUTH, addAliceWithRelease } from '../helpers/alice-release.js';
import { assertCliOk, runLarderCli } from '../helpers/cli.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { githubClaims, startIssuer, type TestIssuer } from '../helpers/oidc-issuer.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish } from '../helpers/upload-form.js';

describe('trusted publishing with curl and twine', () => {
  const dir = suiteTempDir('larder-oidc-twine-');
  let clients: Clients;
  let issuer: TestIssuer;
  let server: TestLarder;

  before(async () => {
    clients = await findClients();
    issuer = await startIssuer();
    await issuer.addKey('RS256');
    server = await startLarder({ oidcIssuers: [issuer.url] });
    await addAliceWithRelease(server, dir, { name: 'widgets', version: '1.0' });
    await publish(server.url, ALICE_AUTH, await buildWheel(dir, { name: 'gadgets', version: '1.0' }));
    const env = { LARDER_DATA: server.data, LARDER_OIDC_ISSUERS: issuer.url };
    assertCliOk(await runLarderCli(['publisher', 'add', 'widgets', '--issuer', issuer.url, '--claim', 'repository=acme/widgets'], { env }));
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
  });

  test('a token minted with curl uploads with twine, to its project only', async (t) => {
    if (!(await requireClients(t, ['twine'], clients))) return;
    const audience = (await (await fetch(`${server.url}/_/oidc/audience`)).json()) as { audience: string };
    const jwt = await issuer.sign({ ...githubClaims('acme/widgets'), aud: audience.audience }, { now: Date.now() });
    const curl = await runCommand('curl', [
      '-sS',
      '--fail-with-body',
      '-X',
      'POST',
      `${server.url}/_/oidc/mint-token`,
      '-H',
      'Content-Type: application/json',
      '-d',
      JSON.stringify({ token: jwt }),
    ]);
    assert.equal(curl.code, 0, `${curl.stdout}\n${curl.stderr}`);
    const minted = JSON.parse(curl.stdout) as { success: boolean; token: string; expires: number };
    assert.equal(minted.success, true);

    const twine = (files: string[]) =>
      twineUpload(`${server.url}/legacy/`, files, { username: '__token__', password: minted.token, twine: clients.twine ?? undefined, timeoutMs: 60_000 });
    const wheel = await buildWheel(dir, { name: 'widgets', version: '1.1' });
    const up = await twine([wheel.path]);
    assert.equal(up.code, 0, `${up.stdout}\n${up.stderr}`);
    const file = await server.larder.meta.getFile('widgets', wheel.filename);
    assert.equal(file?.publisher?.claims.repository, 'acme/widgets');

    const other = await twine([(await buildWheel(dir, { name: 'gadgets', version: '1.1' })).path]);
    assert.notEqual(other.code, 0);
    assert.match(`${other.stdout}${other.stderr}`, /403/);
  });
});
