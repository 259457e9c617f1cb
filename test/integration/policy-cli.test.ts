/**
 * `larder policy …` on a data directory (`explain` reading a fake upstream through the cache), and a running
 * `larder serve` (a child process) seeing the CLI's exemptions at once and reloading its deny list from the
 * config file on SIGHUP.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { startChildServer } from '../helpers/child-server.js';
import { runLarderCli } from '../helpers/cli.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import { publishInput } from '../helpers/storage-fixtures.js';
import { eventually } from '../helpers/eventually.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { buildWheelTable } from '../helpers/wheel-table.js';

/** The `<a>` tag of a file on a PEP 503 page. */
const anchor = (html: string, filename: string) => html.match(new RegExp(`<a [^>]*>${filename.replace(/\./g, '\\.')}</a>`))?.[0] ?? '';

describe('larder policy', () => {
  const dir = suiteTempDir('larder-policy-cli-');
  let freshUploaded: Date;
  let up: FakeUpstream;
  let d: Record<string, BuiltDist>;

  before(async () => {
    d = await buildWheelTable(dir, { old: ['fresh-lib', '1.0'], new: ['fresh-lib', '2.0'], other: ['other-lib', '1.0'] });
    up = await startFakeUpstream();
    // The child server reads the real clock: upload times are relative to now (no sleeping anywhere).
    freshUploaded = new Date();
    up.addProject('fresh-lib', [d.old!, d.new!], {
      uploadTime: { [d.old!.filename]: new Date(Date.now() - 30 * 86_400_000), [d.new!.filename]: freshUploaded },
    });
    up.addProject('other-lib', [d.other!], { uploadTime: new Date(Date.now() - 30 * 86_400_000) });
  });

  after(() => up.close());

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

  test('explain: the rule that holds a release back and when it becomes available, read through the cache as the server reads it', async () => {
    const env = { LARDER_DATA: join(dir, 'explain-data'), LARDER_UPSTREAM: up.url, LARDER_MIN_RELEASE_AGE: '3d', USER: 'ops-alice' };
    const held = await runLarderCli(['policy', 'explain', 'Fresh_Lib==2.0'], { env });
    assert.equal(held.code, 0, held.stderr);
    const visibleAt = new Date(freshUploaded.getTime() + 3 * 86_400_000).toISOString();
    assert.equal(
      held.stdout,
      `fresh-lib 2.0: held back (release cooldown (LARDER_MIN_RELEASE_AGE)); available from ${visibleAt}\n` +
        `fresh-lib 2.0 is held back by larder's release cooldown: uploaded ${freshUploaded.toISOString()}, less than 3d ago (LARDER_MIN_RELEASE_AGE); it becomes available ${visibleAt}, or now with: larder policy allow fresh-lib==2.0\n`,
    );
    assert.equal(
      (await runLarderCli(['policy', 'explain', 'fresh-lib==1.0'], { env })).stdout,
      'fresh-lib 1.0: offered to installers (no rule holds it back)\n',
    );
    assert.equal((await runLarderCli(['policy', 'allow', 'fresh-lib==2.0', '--reason', 'hotfix'], { env })).code, 0);
    assert.match(
      (await runLarderCli(['policy', 'explain', 'fresh-lib==2.0'], { env })).stdout,
      /^fresh-lib 2\.0: offered to installers \(no rule holds it back\); exempted from the release cooldown by ops-alice at \S+ \(hotfix\)\n$/,
    );

    const denied = await runLarderCli(['policy', 'explain', 'fresh-lib==1.0'], { env: { ...env, LARDER_DENY: 'fresh-lib<1.5,other-lib' } });
    assert.equal(denied.stdout, "fresh-lib 1.0: held back (deny list (LARDER_DENY))\nfresh-lib 1.0 is refused by larder's deny list (fresh-lib<1.5)\n");
    const project = await runLarderCli(['policy', 'explain', 'other-lib==1.0'], { env: { ...env, LARDER_DENY: 'other-lib' } });
    assert.equal(project.stdout, "other-lib: the whole project is refused (deny list (LARDER_DENY))\nother-lib is refused by larder's deny list (other-lib)\n");
    const notAllowed = await runLarderCli(['policy', 'explain', 'other-lib==1.0'], { env: { ...env, LARDER_ALLOW: 'fresh-lib' } });
    assert.match(notAllowed.stdout, /^other-lib: the whole project is refused \(not on the allow list \(LARDER_ALLOW\)\)\n/);

    const missing = await runLarderCli(['policy', 'explain', 'fresh-lib==9.9'], { env });
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'larder: the upstream has no release 9.9 of fresh-lib\n');
    const noUpstream = await runLarderCli(['policy', 'explain', 'fresh-lib==2.0'], { env: { ...env, LARDER_UPSTREAM: 'none' } });
    assert.equal(noUpstream.code, 2);
    assert.match(noUpstream.stderr, /no upstream is configured/);

    // A private project of the name: the policy never applies to it.
    const storage = openStorage(env.LARDER_DATA);
    try {
      await storage.index.publishFile(publishInput('other_lib-1.0-py3-none-any.whl', '1.0', 'a'.repeat(64), 'other-lib'));
    } finally {
      await storage.close();
    }
    const mine = await runLarderCli(['policy', 'explain', 'other-lib==1.0'], { env: { ...env, LARDER_DENY: 'other-lib' } });
    assert.equal(mine.stdout, 'other-lib: a private project; the policy applies to upstream projects only\n');
  });

  test('a running server applies a CLI exemption at once and reloads the deny list on SIGHUP', async () => {
    const data = join(dir, 'serve-data');
    const config = join(dir, 'larder.toml');
    await writeFile(config, 'minReleaseAge = "3d"\ndeny = ["other-lib"]\n');
    const server = await startChildServer(['--data', data, '--upstream', up.url, '--log-level', 'info'], { LARDER_CONFIG: config });
    try {
      const page = async (name: string) => fetch(`${server.url}/simple/${name}/`);
      const fresh = await (await page('fresh-lib')).text();
      assert.doesNotMatch(anchor(fresh, d.old!.filename), /data-yanked/, fresh);
      assert.match(anchor(fresh, d.new!.filename), /data-yanked="[^"]*release cooldown/, fresh);
      const allowed = await runLarderCli(['policy', 'allow', 'fresh-lib==2.0'], { env: { LARDER_DATA: data } });
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.doesNotMatch(anchor(await (await page('fresh-lib')).text(), d.new!.filename), /data-yanked/, 'the exemption is seen at the next request');

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
