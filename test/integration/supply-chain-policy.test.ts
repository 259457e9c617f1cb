/**
 * The supply-chain policy (docs/policy.md) against a real larder and a fake upstream with
 * PEP 700 upload times relative to an injected clock: the release cooldown on simple pages (held-back files
 * listed as yanked with the reason), the JSON API and downloads, break-glass exemptions, files with no known
 * upload time, deny and allow lists, reloads, private projects never held back, and name collisions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Settings } from '../../src/config/schema.js';
import type { BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { PIP_ACCEPT, rawGet, type Got } from '../helpers/raw-get.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { publish } from '../helpers/upload-form.js';
import { buildWheelTable } from '../helpers/wheel-table.js';

const DAY = 86_400_000;
const get = (url: string, headers: Record<string, string> = {}) => rawGet(url, { headers });
const json = <T>(got: Got): T => JSON.parse(got.body.toString('utf8')) as T;
const filenames = (got: Got) => json<{ files: { filename: string }[] }>(got).files.map((f) => f.filename);
/** The files a PEP 691 page offers to installers (not yanked). */
const offered = (got: Got) =>
  json<{ files: { filename: string; yanked?: boolean | string }[] }>(got)
    .files.filter((f) => !f.yanked)
    .map((f) => f.filename);
/** The yanked files of a PEP 691 page, with their reasons. */
const yankedReasons = (got: Got) =>
  Object.fromEntries(
    json<{ files: { filename: string; yanked?: boolean | string }[] }>(got)
      .files.filter((f) => f.yanked)
      .map((f) => [f.filename, f.yanked]),
  );

describe('supply-chain policy', () => {
  const dir = suiteTempDir('larder-policy-');
  let up: FakeUpstream;
  let htmlUp: FakeUpstream;
  const larders: TestLarder[] = [];
  let d: Record<string, BuiltDist>;
  const start = Date.UTC(2026, 5, 1);

  const larder = async (overrides: Partial<Settings>, clock = new ManualClock(start)) => {
    const l = await startLarder({ upstream: up.url, upstreamRetries: 0, ...overrides }, undefined, { clock });
    larders.push(l);
    return { l, clock };
  };

  before(async () => {
    d = await buildWheelTable(dir, {
      old: ['fresh-lib', '1.0'],
      new: ['fresh-lib', '2.0'],
      evil: ['evil-pkg', '1.0'],
      other: ['other-lib', '3.0'],
      mine: ['acme-internal', '1.0'],
      theirs: ['acme-internal', '99.0'],
    });
    up = await startFakeUpstream();
    up.addProject('fresh-lib', [d.old!, d.new!], {
      uploadTime: { [d.old!.filename]: new Date(start - 30 * DAY), [d.new!.filename]: new Date(start - 3_600_000) },
    });
    up.addProject('evil-pkg', [d.evil!], { uploadTime: new Date(start - 30 * DAY) });
    up.addProject('other-lib', [d.other!], { uploadTime: new Date(start - 30 * DAY) });
    // An HTML-only mirror with no JSON API: no upload times anywhere.
    htmlUp = await startFakeUpstream({ htmlOnly: true, jsonApi: false });
    htmlUp.addProject('fresh-lib', [d.old!, d.new!]);
  });

  after(async () => {
    for (const l of larders) await l.close();
    await up.close();
    await htmlUp.close();
  });

  test('the cooldown marks young files yanked with the reason on simple pages, leaves them off the JSON API, refuses them as downloads, and lets them through once old enough', async () => {
    const { l, clock } = await larder({ minReleaseAge: 3 * DAY });
    const visibleAt = new Date(start - 3_600_000 + 3 * DAY).toISOString();
    const page = await get(`${l.url}/simple/fresh-lib/`, { Accept: PIP_ACCEPT });
    assert.equal(page.status, 200);
    assert.deepEqual(offered(page), [d.old!.filename]);
    const reason = yankedReasons(page)[d.new!.filename];
    assert.match(String(reason), /is held back by larder's release cooldown: .*less than 3d ago \(LARDER_MIN_RELEASE_AGE\)/);
    assert.ok(String(reason).includes(visibleAt), `the yanked reason says when the file becomes available: ${reason}`);
    assert.deepEqual(json<{ versions: string[] }>(page).versions, ['1.0', '2.0']);
    const html = (await get(`${l.url}/simple/fresh-lib/`, { Accept: 'text/html' })).body.toString();
    assert.match(html, new RegExp(`data-yanked="[^"]*release cooldown[^"]*"[^>]*>${d.new!.filename.replace(/\./g, '\\.')}<`));
    assert.doesNotMatch(html, new RegExp(`data-yanked[^>]*>${d.old!.filename.replace(/\./g, '\\.')}<`));

    const api = json<{ info: { version: string }; releases: Record<string, unknown[]>; urls: { filename: string }[] }>(
      await get(`${l.url}/pypi/fresh-lib/json`),
    );
    assert.equal(api.info.version, '1.0', 'info.version is the newest visible release');
    assert.deepEqual(Object.keys(api.releases), ['1.0']);
    assert.deepEqual(
      api.urls.map((u) => u.filename),
      [d.old!.filename],
    );
    assert.equal((await get(`${l.url}/pypi/fresh-lib/2.0/json`)).status, 404);

    const refused = await fetch(`${l.url}/packages/fresh-lib/${d.new!.filename}`);
    assert.equal(refused.status, 403);
    const message = await refused.text();
    assert.equal(message, `${reason}\n`, 'the download refusal and the yanked reason are one statement');
    assert.ok(message.includes(visibleAt), `the refusal says when the file becomes available: ${message}`);
    assert.match(refused.statusText, /less than 3d ago/);

    const metrics = await (await fetch(`${l.url}/metrics`)).text();
    assert.match(metrics, /larder_policy_decisions_total\{rule="cooldown",action="hidden"\} [1-9]/);
    assert.match(metrics, /larder_policy_decisions_total\{rule="cooldown",action="refused"\} 1/);

    // No sleeping: the clock moves past the moment the file becomes visible; the cached page is re-filtered.
    clock.advance(3 * DAY);
    const later = await get(`${l.url}/simple/fresh-lib/`, { Accept: PIP_ACCEPT });
    assert.deepEqual(offered(later), [d.old!.filename, d.new!.filename]);
    assert.deepEqual(filenames(later), offered(later), 'nothing is marked yanked any more');
    assert.equal(json<{ info: { version: string } }>(await get(`${l.url}/pypi/fresh-lib/json`)).info.version, '2.0');
    const ok = await fetch(`${l.url}/packages/fresh-lib/${d.new!.filename}`);
    assert.equal(ok.status, 200);
    assert.equal(Buffer.from(await ok.arrayBuffer()).length, d.new!.size);
  });

  test('an exemption lets a release through at once, cached page or not; revoking it holds it back again', async () => {
    const { l } = await larder({ minReleaseAge: 3 * DAY });
    const before = await get(`${l.url}/simple/fresh-lib/`, { Accept: PIP_ACCEPT });
    assert.deepEqual(offered(before), [d.old!.filename]);
    await l.larder.storage.policy.putExemption({ project: 'fresh-lib', version: '2.0', reason: 'CVE fix', by: 'test', at: new Date(start).toISOString() });
    const now = await get(`${l.url}/simple/fresh-lib/`, { Accept: PIP_ACCEPT });
    assert.deepEqual(offered(now), [d.old!.filename, d.new!.filename]);
    assert.notEqual(now.headers.etag, before.headers.etag);
    assert.equal((await fetch(`${l.url}/packages/fresh-lib/${d.new!.filename}`)).status, 200);
    assert.equal(await l.larder.storage.policy.deleteExemption('fresh-lib', '2.0'), true);
    assert.deepEqual(offered(await get(`${l.url}/simple/fresh-lib/`, { Accept: PIP_ACCEPT })), [d.old!.filename]);
  });

  test('files with no known upload time are served by default (and counted), held back under LARDER_MIN_RELEASE_AGE_UNKNOWN=deny', async () => {
    const { l: allow } = await larder({ upstream: htmlUp.url, upstreamJsonApi: null, minReleaseAge: 3 * DAY });
    assert.ok((await get(`${allow.url}/simple/fresh-lib/`)).body.toString().includes(d.new!.filename));
    assert.match(await (await fetch(`${allow.url}/metrics`)).text(), /larder_policy_unknown_upload_time_total [1-9]/);

    const { l: deny } = await larder({ upstream: htmlUp.url, upstreamJsonApi: null, minReleaseAge: 3 * DAY, minReleaseAgeUnknown: 'deny' });
    const page = await get(`${deny.url}/simple/fresh-lib/`, { Accept: PIP_ACCEPT });
    assert.deepEqual(offered(page), []);
    assert.deepEqual(Object.keys(yankedReasons(page)).sort(), [d.old!.filename, d.new!.filename].sort());
    assert.match(String(yankedReasons(page)[d.old!.filename]), /no known upload time/);
    const refused = await fetch(`${deny.url}/packages/fresh-lib/${d.old!.filename}`);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /no known upload time.*LARDER_MIN_RELEASE_AGE_UNKNOWN=deny/);
  });

  test('the deny list refuses whole projects, marks matching releases yanked with the reason (after an upstream yank reason) and refuses their files; the project list leaves denied projects out', async () => {
    up.yank('other-lib', d.other!.filename, 'broken build');
    const { l } = await larder({ deny: ['evil-pkg', 'fresh-lib<1.5', 'other-lib<4'] });
    try {
      assert.deepEqual(yankedReasons(await get(`${l.url}/simple/other-lib/`, { Accept: PIP_ACCEPT })), {
        [d.other!.filename]: "other-lib 3.0 is refused by larder's deny list (other-lib<4) (also yanked upstream: broken build)",
      });
    } finally {
      up.unyank('other-lib', d.other!.filename);
    }
    const evil = await get(`${l.url}/simple/evil-pkg/`, { Accept: PIP_ACCEPT });
    assert.equal(evil.status, 403);
    assert.match(evil.body.toString(), /evil-pkg is refused by larder's deny list \(evil-pkg\)/);
    assert.equal((await fetch(`${l.url}/pypi/evil-pkg/json`)).status, 403);
    assert.equal((await fetch(`${l.url}/packages/evil-pkg/${d.evil!.filename}`)).status, 403);

    const page = await get(`${l.url}/simple/fresh-lib/`, { Accept: PIP_ACCEPT });
    assert.deepEqual(offered(page), [d.new!.filename]);
    assert.deepEqual(yankedReasons(page), { [d.old!.filename]: "fresh-lib 1.0 is refused by larder's deny list (fresh-lib<1.5)" });
    const refused = await fetch(`${l.url}/packages/fresh-lib/${d.old!.filename}`);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /fresh-lib 1\.0 is refused by larder's deny list \(fresh-lib<1\.5\)/);

    const root = (await get(`${l.url}/simple/`)).body.toString();
    assert.ok(root.includes('fresh-lib') && !root.includes('evil-pkg'), root);
    assert.match(await (await fetch(`${l.url}/metrics`)).text(), /larder_policy_decisions_total\{rule="deny",action="refused"\} [1-9]/);
  });

  test('the allow list serves only the projects on it (404 naming the allow list otherwise); deny wins; the lists reload without a restart', async () => {
    const { l } = await larder({ allow: ['fresh-lib', 'evil-pkg'], deny: ['evil-pkg'] });
    const other = await get(`${l.url}/simple/other-lib/`, { Accept: PIP_ACCEPT });
    assert.equal(other.status, 404);
    assert.match(other.body.toString(), /other-lib is not on larder's allow list \(LARDER_ALLOW is set\)/);
    assert.equal((await get(`${l.url}/simple/evil-pkg/`)).status, 403, 'deny wins over allow');
    assert.equal((await get(`${l.url}/simple/fresh-lib/`)).status, 200);
    const root = (await get(`${l.url}/simple/`)).body.toString();
    assert.ok(root.includes('fresh-lib') && !root.includes('other-lib') && !root.includes('evil-pkg'), root);

    assert.throws(() => l.larder.reloadPolicy({ ...l.larder.config, deny: ['not a requirement!'] }));
    assert.equal((await get(`${l.url}/simple/other-lib/`)).status, 404, 'a reload that fails keeps the old rules');
    l.larder.reloadPolicy({ ...l.larder.config, allow: [], deny: [] });
    assert.equal((await get(`${l.url}/simple/other-lib/`)).status, 200);
    assert.equal((await get(`${l.url}/simple/evil-pkg/`)).status, 200);
    assert.ok((await get(`${l.url}/simple/`)).body.toString().includes('other-lib'));
  });

  test('private projects are never held back, and an upstream project with a private name is a recorded collision the private project wins', async () => {
    const { l } = await larder({ minReleaseAge: 3 * DAY, allow: ['fresh-lib'] });
    await l.addUser('alice', 'alice-password');
    await publish(l.url, basicAuth('alice', 'alice-password'), d.mine!);
    assert.deepEqual(filenames(await get(`${l.url}/simple/acme-internal/`, { Accept: PIP_ACCEPT })), [d.mine!.filename]);

    up.addProject('acme-internal', [d.theirs!], { uploadTime: new Date(start - 30 * DAY) });
    try {
      l.larder.reloadPolicy({ ...l.larder.config, allow: [] });
      const root = await get(`${l.url}/simple/`);
      assert.equal(root.status, 200);
      const collisions = Array.from(await l.larder.storage.policy.collisions());
      assert.deepEqual(
        collisions.map((c) => [c.project, c.upstream]),
        [['acme-internal', '127.0.0.1']],
      );
      assert.match(await (await fetch(`${l.url}/metrics`)).text(), /larder_name_collisions 1/);
      assert.deepEqual(filenames(await get(`${l.url}/simple/acme-internal/`, { Accept: PIP_ACCEPT })), [d.mine!.filename]);
    } finally {
      up.removeProject('acme-internal');
    }
  });
});
