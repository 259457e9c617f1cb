/**
 * Several upstreams (docs/policy.md): a project matching an upstream's `projects` patterns
 * comes only from it, any other from the first upstream without patterns that has it, never merged; the
 * caches of two upstreams never mix; X-Larder-Upstream and the metrics say which one answered; the list
 * comes from a TOML or JSON config file, each entry with its own upstream settings.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import type { BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { eventually } from '../helpers/eventually.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { PIP_ACCEPT, rawGet, type Got } from '../helpers/raw-get.js';
import { suiteTempDir } from '../helpers/temp-dir.js';
import { buildWheelTable } from '../helpers/wheel-table.js';

const get = (url: string) => rawGet(url, { headers: { Accept: PIP_ACCEPT } });
const filenames = (got: Got) => (JSON.parse(got.body.toString('utf8')) as { files: { filename: string }[] }).files.map((f) => f.filename);

describe('several upstreams', () => {
  const dir = suiteTempDir('larder-upstreams-');
  let pypi: FakeUpstream;
  let torch: FakeUpstream;
  let vendor: FakeUpstream;
  let l: TestLarder;
  let d: Record<string, BuiltDist>;

  before(async () => {
    d = await buildWheelTable(dir, {
      torchPypi: ['torch', '2.0'],
      torchOwn: ['torch', '2.0+cpu'],
      visionOwn: ['torchvision', '0.20+cpu'],
      sharedPypi: ['shared-lib', '1.0'],
      sharedTorch: ['shared-lib', '9.0'],
      sharedVendor: ['shared-lib', '5.0'],
      sdk: ['vendor-sdk', '1.0'],
    });
    pypi = await startFakeUpstream();
    torch = await startFakeUpstream();
    vendor = await startFakeUpstream();
    pypi.addProject('torch', [d.torchPypi!]);
    pypi.addProject('shared-lib', [d.sharedPypi!]);
    torch.addProject('torch', [d.torchOwn!]);
    torch.addProject('torchvision', [d.visionOwn!]);
    torch.addProject('shared-lib', [d.sharedTorch!]);
    vendor.addProject('shared-lib', [d.sharedVendor!]);
    vendor.addProject('vendor-sdk', [d.sdk!]);
    const toml = join(dir, 'larder.toml');
    await writeFile(
      toml,
      [
        '[[upstreams]]',
        'name = "pytorch"',
        `url = "${torch.url}"`,
        'projects = ["torch*"]',
        'retries = 0',
        '',
        '[[upstreams]]',
        'name = "pypi"',
        `url = "${pypi.url}"`,
        'retries = 0',
        '',
        '[[upstreams]]',
        'name = "vendor"',
        `url = "${vendor.url}"`,
        'retries = 1',
        '',
      ].join('\n'),
    );
    const { upstreams } = loadConfig({ env: { LARDER_CONFIG: toml } });
    assert.deepEqual(
      upstreams.map((u) => u.retries),
      [0, 0, 1],
    );
    l = await startLarder({ upstreams });
  });

  after(async () => {
    await l.close();
    for (const u of [pypi, torch, vendor]) await u.close();
  });

  test('a project matching an upstream’s patterns comes only from that upstream, files included', async () => {
    const page = await get(`${l.url}/simple/torch/`);
    assert.equal(page.status, 200);
    assert.deepEqual(filenames(page), [d.torchOwn!.filename]);
    assert.equal(page.headers['x-larder-upstream'], 'pytorch');
    assert.deepEqual(filenames(await get(`${l.url}/simple/torchvision/`)), [d.visionOwn!.filename]);
    const file = await fetch(`${l.url}/packages/torch/${d.torchOwn!.filename}`);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('x-larder-upstream'), 'pytorch');
    assert.equal(Buffer.from(await file.arrayBuffer()).length, d.torchOwn!.size);
    assert.equal((await fetch(`${l.url}/packages/torch/${d.torchPypi!.filename}`)).status, 404, "pypi's torch is never served");
    assert.equal(pypi.requestsTo('/simple/torch/').length, 0, 'the other upstreams are not even asked');
  });

  test('any other project comes from the first upstream without patterns that has it, never merged', async () => {
    const shared = await get(`${l.url}/simple/shared-lib/`);
    assert.deepEqual(filenames(shared), [d.sharedPypi!.filename]);
    assert.equal(shared.headers['x-larder-upstream'], 'pypi');
    const sdk = await get(`${l.url}/simple/vendor-sdk/`);
    assert.deepEqual(filenames(sdk), [d.sdk!.filename]);
    assert.equal(sdk.headers['x-larder-upstream'], 'vendor');
    const api = await fetch(`${l.url}/pypi/vendor-sdk/json`);
    assert.equal(api.status, 200);
    assert.equal(api.headers.get('x-larder-upstream'), 'vendor');
    const missing = await get(`${l.url}/simple/no-such-project/`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['x-larder-cache'], 'miss', 'how the last upstream asked found it missing');
    assert.equal(missing.headers['x-larder-upstream'], undefined, 'no upstream answered it');
    assert.equal((await get(`${l.url}/simple/no-such-project/`)).headers['x-larder-cache'], 'hit', 'the 404s are cached');

    const metrics = await (await fetch(`${l.url}/metrics`)).text();
    assert.match(metrics, /larder_upstream_answers_total\{upstream="vendor",kind="page"\} [1-9]/);
    assert.match(metrics, /larder_upstream_answers_total\{upstream="pytorch",kind="file"\} [1-9]/);
  });

  test('the project list is the union, each name from the upstream that serves it', async () => {
    const root = JSON.parse((await get(`${l.url}/simple/`)).body.toString()) as { projects: { name: string }[] };
    const names = root.projects.map((p) => p.name).sort();
    assert.deepEqual(names, ['shared-lib', 'torch', 'torchvision', 'vendor-sdk']);
  });

  test('the two caches never mix: the first upstream keeps the default cache, the others one each', async () => {
    const file = await fetch(`${l.url}/packages/shared-lib/${d.sharedPypi!.filename}`);
    assert.equal(file.status, 200);
    await file.arrayBuffer();
    const records = async () => (await Array.fromAsync(l.larder.storage.cachedFiles.entries())).map((e) => `${e.id.project} ${e.id.filename}`);
    await eventually(async () => (await records()).length === 2, 'both downloads are recorded');
    const recorded = await records();
    assert.ok(recorded.includes(`torch ${d.torchOwn!.filename}`), recorded.join('\n'));
    assert.ok(recorded.includes(`pypi/shared-lib ${d.sharedPypi!.filename}`), recorded.join('\n'));
    assert.ok(l.larder.storage.documents.get({ kind: 'page', project: 'torch' }));
    assert.equal(l.larder.storage.documents.get({ kind: 'page', project: 'vendor-sdk' }), undefined);
    assert.ok(l.larder.storage.upstreamDocuments('vendor').get({ kind: 'page', project: 'vendor-sdk' }));
    assert.equal(l.larder.storage.upstreamDocuments('pypi').get({ kind: 'page', project: 'torch' }), undefined);
  });

  test("each upstream's client keeps its own settings: the vendor's one retry", async () => {
    await vendor.setFault({ kind: 'status500', pathPrefix: '/simple/vendor-broken/' });
    try {
      vendor.clearLog();
      assert.equal((await get(`${l.url}/simple/vendor-broken/`)).status, 502);
      assert.equal(vendor.requestsTo('/simple/vendor-broken/').length, 2, 'one request and the one retry of its entry');
      assert.equal(pypi.requestsTo('/simple/vendor-broken/').length, 1, 'pypi answered 404 first, not retried');
    } finally {
      await vendor.setFault(null);
    }
  });
});
