/**
 * `/stats/` with real uploads and real cached upstream files (two upstreams, so the second one's records are
 * namespaced): private and cached files and bytes counted on their own, as JSON for API clients and as a
 * page in the site's layout for browsers; one count serves requests for 10 s of the injected clock; with
 * LARDER_READ_AUTH the page asks for a login and the JSON answers 401.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as cheerio from 'cheerio';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { eventually } from '../helpers/eventually.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { publish } from '../helpers/upload-form.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

interface StatsJson {
  top_packages: Record<string, { size: number }>;
  total_packages_size: number;
  private: { projects: number; files: number; bytes: number };
  cached: { projects: number; files: number; bytes: number };
}

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('/stats/', () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  let pypi: FakeUpstream;
  let pytorch: FakeUpstream;
  let server: TestLarder;
  const dir = suiteTempDir('larder-web-stats-');
  const d: Record<string, BuiltDist> = {};
  const auth = basicAuth('alice', 'alice-password');
  const upload = async (dist: BuiltDist) => {
    await publish(server.url, auth, dist);
  };
  const json = async () => (await (await fetch(`${server.url}/stats/`, { headers: { Accept: 'application/json' } })).json()) as StatsJson;

  before(async () => {
    d.mine1 = await buildWheel(join(dir, 'm1'), { name: 'Acme.Internal', version: '1.0' });
    d.mine2 = await buildWheel(join(dir, 'm2'), { name: 'Acme.Internal', version: '1.1', dataFile: { bytes: 20_000 } });
    d.mine3 = await buildWheel(join(dir, 'm3'), { name: 'acme-later', version: '1.0' });
    d.up1 = await buildWheel(join(dir, 'u1'), { name: 'big-lib', version: '1.0', dataFile: { bytes: 300_000 } });
    d.up2 = await buildWheel(join(dir, 'u2'), { name: 'big-lib', version: '2.0', dataFile: { bytes: 200_000 } });
    d.torch = await buildWheel(join(dir, 't'), { name: 'torch', version: '2.0', dataFile: { bytes: 100_000 } });
    pypi = await startFakeUpstream();
    pytorch = await startFakeUpstream();
    pypi.addProject('big-lib', [d.up1!, d.up2!]);
    pytorch.addProject('torch', [d.torch!]);
    server = await startLarder(
      {
        upstreams: [
          { name: 'pytorch', url: pytorch.url, projects: ['torch*'], username: null, password: null },
          { name: 'pypi', url: pypi.url, projects: null, username: null, password: null },
        ],
      },
      undefined,
      { clock },
    );
    await server.addUser('alice', 'alice-password');
    await upload(d.mine1!);
    await upload(d.mine2!);
    for (const [project, dist] of [
      ['big-lib', d.up1!],
      ['big-lib', d.up2!],
      ['torch', d.torch!],
    ] as const) {
      const res = await fetch(`${server.url}/packages/${project}/${dist.filename}`);
      assert.equal(res.status, 200);
      assert.equal(Buffer.from(await res.arrayBuffer()).length, dist.size);
    }
    // A cached file's record is written once the download is verified, which may be just after the client's last byte.
    await eventually(async () => (await server.larder.storage.cachedFiles.totals()).files === 3, 'the three downloads are recorded');
  });
  after(async () => {
    await server.close();
    await pypi.close();
    await pytorch.close();
  });

  test('JSON: private and cached upstream files and bytes on their own, and the total of both', async () => {
    const privateBytes = d.mine1!.size + d.mine2!.size;
    const cachedBytes = d.up1!.size + d.up2!.size + d.torch!.size;
    const stats = await json();
    assert.deepEqual(stats.private, { projects: 1, files: 2, bytes: privateBytes });
    assert.deepEqual(stats.cached, { projects: 2, files: 3, bytes: cachedBytes });
    assert.equal(stats.total_packages_size, privateBytes + cachedBytes);
    assert.deepEqual(stats.top_packages, {
      'Acme.Internal': { size: privateBytes },
      'big-lib': { size: d.up1!.size + d.up2!.size },
      torch: { size: d.torch!.size },
    });
    assert.equal((await server.larder.storage.cachedFiles.totals()).bytes, cachedBytes, 'the same bytes larder cache stats counts');
  });

  test('HTML: the site layout with each side counted, and the largest projects of each', async () => {
    const res = await fetch(`${server.url}/stats/`, { headers: { Accept: BROWSER_ACCEPT } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('vary') ?? '', /Accept/);
    const $ = cheerio.load(await res.text());
    assert.equal($('header.site').length, 1);
    assert.equal($('title').text(), 'Statistics · larder');
    const privateBytes = d.mine1!.size + d.mine2!.size;
    const cachedBytes = d.up1!.size + d.up2!.size + d.torch!.size;
    const facts = $('dl.facts dd')
      .map((_, dd) => $(dd).text())
      .get();
    assert.match(facts[0]!, new RegExp(`^1 project, 2 files, [\\d.]+ KB \\(${privateBytes.toLocaleString('en')} bytes\\)$`));
    assert.match(facts[1]!, new RegExp(`^2 projects, 3 files, [\\d.]+ KB \\(${cachedBytes.toLocaleString('en')} bytes\\)$`));
    assert.match(facts[2]!, new RegExp(`\\(${(privateBytes + cachedBytes).toLocaleString('en')} bytes\\)$`));
    assert.deepEqual(
      $('#cached-h + table tbody tr td:nth-child(2)')
        .map((_, td) => $(td).text())
        .get(),
      ['big-lib', 'torch'],
    );
    assert.equal($('#private-h + table a').attr('href'), '/project/acme-internal/');
    const plain = await fetch(`${server.url}/stats`, { headers: { Accept: BROWSER_ACCEPT }, redirect: 'manual' });
    assert.equal(plain.status, 301);
    assert.equal(plain.headers.get('location'), '/stats/');
  });

  test('one count serves requests for 10 s of the clock; then a new upload is counted', async () => {
    clock.advance(10_000);
    const before = await json();
    await upload(d.mine3!);
    assert.deepEqual((await json()).private, before.private);
    clock.advance(10_000);
    assert.deepEqual((await json()).private, { projects: 2, files: 3, bytes: before.private.bytes + d.mine3!.size });
  });

  test('with LARDER_READ_AUTH the page sends browsers to the login form and the JSON answers 401', async () => {
    const closed = await startLarder({ readAuth: true });
    try {
      const page = await fetch(`${closed.url}/stats/`, { headers: { Accept: BROWSER_ACCEPT }, redirect: 'manual' });
      assert.equal(page.status, 303);
      assert.equal(page.headers.get('location'), '/account/login/?next=%2Fstats%2F');
      assert.equal((await fetch(`${closed.url}/stats/`, { headers: { Accept: 'application/json' } })).status, 401);
    } finally {
      await closed.close();
    }
  });
});
