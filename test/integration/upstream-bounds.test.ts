/**
 * Bounds on what the upstream may send (docs/upstream.md): LARDER_MAX_FILE_SIZE for files, `.metadata`
 * and `.asc` (refused before a request when the page advertises a larger size, cut off when the body grows
 * past it), and caps on project pages and the project list. Nothing partial is kept.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Settings } from '../../src/config/schema.js';
import { UpstreamFetcher } from '../../src/upstream/upstream-fetcher.js';
import type { ProjectName } from '../../src/model/names.js';
import { UpstreamClient, UpstreamError } from '../../src/upstream/client.js';
import { OriginPolicy } from '../../src/upstream/origin-policy.js';
import { loadConfig } from '../../src/config/load.js';
import type { BuiltDist } from '../fixtures/dists.js';
import type { FakeUpstream } from '../fixtures/fake-upstream.js';
import { sha256Hex } from '../fixtures/hashes.js';
import { eventually } from '../helpers/eventually.js';
import type { TestLarder } from '../helpers/larder.js';
import { startUpstreamBench, type UpstreamBench } from '../helpers/upstream-bench.js';
import { rawGet } from '../helpers/raw-get.js';

describe('upstream bounds', () => {
  let bench: UpstreamBench;
  let up: FakeUpstream;
  let big: BuiltDist;
  let wordy: BuiltDist;
  const larder = (overrides: Partial<Settings> = {}) => bench.larder(overrides);
  const tmpEmpty = async (l: TestLarder) => (await readdir(join(l.data, 'tmp'))).length === 0;
  const filesFetched = (dist: BuiltDist, suffix = '') => up.requestsTo('/files/').filter((r) => r.path.endsWith(`${dist.filename}${suffix}`));

  before(async () => {
    bench = await startUpstreamBench('larder-bounds-');
    up = bench.up;
    big = await bench.offerWheel({ name: 'big', version: '1.0', dataFile: { bytes: 3 * 1024 * 1024, seed: 'bounds-big' } });
    wordy = await bench.offerWheel({ name: 'wordy', version: '1.0', description: 'words '.repeat(2000) });
  });

  after(() => bench?.close());

  test('a file whose advertised size is over LARDER_MAX_FILE_SIZE: 502 naming the setting, and no request for it', async () => {
    const l = await larder({ maxFileSize: 1024 * 1024 });
    up.clearLog();
    const got = await rawGet(`${l.url}/packages/big/${big.filename}`);
    assert.equal(got.status, 502);
    assert.match(got.body.toString(), /LARDER_MAX_FILE_SIZE/);
    assert.equal(filesFetched(big).length, 0);
  });

  test('a file with no advertised size whose Content-Length is over the limit: 502, nothing kept', async () => {
    up.configure({ htmlOnly: true });
    try {
      const l = await larder({ maxFileSize: 1024 * 1024, upstreamJsonApi: null });
      const got = await rawGet(`${l.url}/packages/big/${big.filename}`);
      assert.equal(got.status, 502);
      assert.match(got.body.toString(), /larger than LARDER_MAX_FILE_SIZE \(1\.0 MB\)/);
      await eventually(() => tmpEmpty(l), 'tmp/ is emptied');
      assert.equal(await l.larder.blobs.has(big.sha256), false);
    } finally {
      up.configure({ htmlOnly: false });
    }
  });

  test('a .metadata larger than the limit is cut off while it streams: not delivered whole, not kept', async () => {
    const l = await larder({ maxFileSize: 4096 });
    assert.ok(wordy.metadata.length > 4096);
    const got = await rawGet(`${l.url}/packages/wordy/${wordy.filename}.metadata`);
    if (got.status === 200) assert.ok(got.error || got.body.length < wordy.metadata.length, 'a 200 must be cut short');
    else assert.equal(got.status, 502);
    await eventually(() => tmpEmpty(l), 'tmp/ is emptied');
    assert.equal(await l.larder.blobs.has(wordy.metadataSha256), false);
    // The wheel itself is under no such small limit once the setting allows it.
    const ok = await larder({ maxFileSize: 10 * 1024 * 1024 });
    const file = await rawGet(`${ok.url}/packages/wordy/${wordy.filename}.metadata`);
    assert.equal(file.status, 200);
    assert.equal(sha256Hex(file.body), wordy.metadataSha256);
  });

  test('project pages and the project list are read only up to their caps', async () => {
    up.setRootFiller(20_000);
    const config = loadConfig({ env: {}, overrides: { upstream: up.url, upstreamRetries: 0 } });
    const [upstream] = config.upstreams;
    const client = new UpstreamClient(upstream!, config, new OriginPolicy(upstream!.url, null, []));
    try {
      const source = new UpstreamFetcher(client, {
        indexUrl: up.url,
        jsonApiUrl: null,
        deadline: 10_000,
        rootDeadline: 10_000,
        maxDocumentBytes: 512,
        maxRootBytes: 64 * 1024,
      });
      await assert.rejects(
        source.fetchProject('wordy' as ProjectName),
        (err: unknown) => err instanceof UpstreamError && /larger than 512 B/.test(err.message),
      );
      const root = await source.fetchRoot();
      assert.equal(root.status, 'ok');
      if (root.status !== 'ok') return;
      let names = 0;
      await assert.rejects(
        (async () => {
          for await (const batch of root.entries) names += batch.length;
        })(),
        (err: unknown) => err instanceof UpstreamError && /project list larger than 65\.5 KB/.test(err.message),
      );
      assert.ok(names < 20_000, `${names} names read`);
    } finally {
      up.setRootFiller(0);
      await client.close();
    }
  });
});
