/**
 * `larder policy …` on a data directory, and a running `larder serve` (a child process) seeing the CLI's
 * exemptions at once and reloading its deny list from the config file on SIGHUP.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { startChildServer } from '../helpers/child-server.js';
import { runLarderCli } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';

describe('larder policy', () => {
  let dir: string;
  let up: FakeUpstream;
  const d: Record<string, BuiltDist> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-policy-cli-'));
    d.old = await buildWheel(join(dir, 'old'), { name: 'fresh-lib', version: '1.0' });
    d.new = await buildWheel(join(dir, 'new'), { name: 'fresh-lib', version: '2.0' });
    d.other = await buildWheel(join(dir, 'other'), { name: 'other-lib', version: '1.0' });
    up = await startFakeUpstream();
    // The child server reads the real clock: upload times are relative to now (no sleeping anywhere).
    up.addProject('fresh-lib', [d.old!, d.new!], { uploadTime: { [d.old!.filename]: new Date(Date.now() - 30 * 86_400_000), [d.new!.filename]: new Date() } });
    up.addProject('other-lib', [d.other!], { uploadTime: new Date(Date.now() - 30 * 86_400_000) });
  });

  after(async () => {
    await up.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('allow, list and revoke exemptions, with who, when and why', async () => {
    const data = join(dir, 'cli-data');
    const env = { LARDER_DATA: data, USER: 'ops-alice' };
    const allowed = await runLarderCli(['policy', 'allow', 'Fresh_Lib==2.0', '--reason', 'CVE-2026-1234 fix'], { env });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(allowed.stdout, 'exempted fresh-lib==2.0 from the release cooldown\n');
    const listed = await runLarderCli(['policy', 'list'], { env });
    assert.match(listed.stdout, /^RELEASE\s+BY\s+AT\s+REASON\nfresh-lib==2\.0\s+ops-alice\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+CVE-2026-1234 fix\n$/);
    assert.equal((await runLarderCli(['policy', 'revoke', 'fresh-lib==2.0'], { env })).code, 0);
    assert.equal((await runLarderCli(['policy', 'list'], { env })).stdout, 'no exemptions\n');
    const again = await runLarderCli(['policy', 'revoke', 'fresh-lib==2.0'], { env });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /no exemption for fresh-lib==2\.0/);
    const bad = await runLarderCli(['policy', 'allow', 'fresh-lib>=2'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /is not NAME==VERSION/);
    assert.equal((await runLarderCli(['policy', 'collisions'], { env })).stdout, 'no name collisions seen\n');
  });

  test('a running server applies a CLI exemption at once and reloads the deny list on SIGHUP', async () => {
    const data = join(dir, 'serve-data');
    const config = join(dir, 'larder.toml');
    await writeFile(config, 'minReleaseAge = "3d"\ndeny = ["other-lib"]\n');
    const server = await startChildServer(['--data', data, '--upstream', up.url, '--log-level', 'info'], { LARDER_CONFIG: config });
    try {
      const page = async (name: string) => fetch(`${server.url}/simple/${name}/`);
      const fresh = await (await page('fresh-lib')).text();
      assert.ok(fresh.includes(d.old!.filename) && !fresh.includes(d.new!.filename), fresh);
      const allowed = await runLarderCli(['policy', 'allow', 'fresh-lib==2.0'], { env: { LARDER_DATA: data } });
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.ok((await (await page('fresh-lib')).text()).includes(d.new!.filename), 'the exemption is seen at the next request');

      assert.equal((await page('other-lib')).status, 403);
      await writeFile(config, 'minReleaseAge = "3d"\ndeny = []\n');
      server.child.kill('SIGHUP');
      await eventually(async () => (await page('other-lib')).status === 200, 'the reloaded deny list lets other-lib through');
      assert.match(server.output(), /SIGHUP received: deny and allow lists and the release cooldown reloaded/);
    } finally {
      await server.stop('SIGTERM');
    }
  });
});
