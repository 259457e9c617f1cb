/**
 * `larder mirror add` with the blobs in S3 and an upstream that publishes no `.metadata` files: the
 * closure reads a wheel's Requires-Dist from the METADATA inside it, fetched from the bucket by ranges
 * (docs/mirror.md), so a dependency named only there is mirrored too.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { runLarderCli } from '../helpers/cli.js';
import { exportTestCredentials, startRealS3, type TestS3Server } from '../helpers/s3-server.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const dir = suiteTempDir('larder-mirror-s3-');
let upstream: FakeUpstream;
let s3: TestS3Server;
let app: BuiltDist;
let dep: BuiltDist;

before(async () => {
  app = await buildWheel(join(dir, 'app'), { name: 'closure-app', version: '1.0', requiresDist: ['closure-dep>=2'] });
  dep = await buildWheel(join(dir, 'dep'), { name: 'closure-dep', version: '2.1' });
  upstream = await startFakeUpstream({ coreMetadata: false });
  upstream.addProject('closure-app', [app]);
  upstream.addProject('closure-dep', [dep]);
  s3 = await startRealS3();
  exportTestCredentials();
});

after(() => Promise.all([upstream?.close(), s3?.close()]));

test('mirror add on S3 follows a dependency named only inside a wheel', async () => {
  const bucket = await s3.createBucket();
  const env = {
    LARDER_UPSTREAM: upstream.url,
    LARDER_DATA: join(dir, 'data'),
    LARDER_BLOB_STORE: `s3://${bucket}/larder`,
    LARDER_S3_ENDPOINT: s3.endpoint,
    LARDER_S3_REGION: s3.credentials.region,
  };
  const requirements = join(dir, 'requirements.txt');
  await writeFile(requirements, 'closure-app\n');
  const add = await runLarderCli(['mirror', 'add', 'site', '-r', requirements, '--python', '3.11', '--platform', 'manylinux_2_17_x86_64'], { env });
  assert.equal(add.code, 0, `${add.stdout}\n${add.stderr}`);
  const list = await runLarderCli(['mirror', 'list'], { env });
  assert.match(list.stdout, /^site: 2 files /m, list.stdout);
  const stored = new Map<string, string>();
  for (const [key, bytes] of await s3.objects(bucket)) stored.set(key.split('/').at(-1)!, createHash('sha256').update(bytes).digest('hex'));
  for (const wheel of [app, dep]) assert.equal(stored.get(wheel.sha256), wheel.sha256, `${wheel.filename} is in the bucket, whole`);
});
