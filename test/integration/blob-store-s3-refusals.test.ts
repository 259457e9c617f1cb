/**
 * The S3 blob store when S3 says no or does not answer: wrong secret, unknown key, wrong region, missing
 * bucket (each a one-line message naming the bucket, the endpoint and S3's code), and endpoints that never
 * answer or refuse connections (given up on within the configured bound). On s3rver, the fast tier's fake
 * S3 (the proxy in front of it refuses signatures and holds PUTs), which also shows what a real S3 does not:
 * a cut PUT kept as a partial object. The rest of the S3 blob store: test/slow/blob-store-s3.test.ts (RGW).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { S3BlobStoreOptions } from '../../src/store/s3/s3-blob-store.js';
import { REPO } from '../helpers/child-server.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { openS3Store, storedBlobs } from '../helpers/s3-test-stores.js';

const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('S3 blob store', () => {
  let s3: TestS3Server;
  before(async () => {
    s3 = await startS3Server();
  });
  after(async () => {
    await s3?.close();
  });
  const openStore = (bucket: string, dataDir: string, options: Partial<S3BlobStoreOptions> = {}) => openS3Store(s3, bucket, dataDir, options);

  describe('S3 blob store: refusals and an unreachable store', () => {
    let dir: string;
    let bucket: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'larder-s3-refused-'));
      bucket = await s3.createBucket();
    });
    after(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('a wrong secret key is refused with a one-line message naming the bucket, the endpoint and the S3 code', async () => {
      const store = openStore(bucket, join(dir, 'a'), { credentials: { ...s3.credentials, secretAccessKey: 'not-the-secret' } });
      await store.init();
      try {
        await assert.rejects(store.ping(), (err: Error) => {
          assert.match(err.message, new RegExp(`s3://${bucket}/larder/blobs/ at ${s3.endpoint.replace(/\./g, '\\.')} failed: SignatureDoesNotMatch`));
          assert.doesNotMatch(err.message, /\n/);
          return true;
        });
        const tmp = store.tmpPath();
        await writeFile(tmp, 'refused');
        await assert.rejects(store.commit(tmp, sha('refused')), /failed: AccessDenied|failed: SignatureDoesNotMatch/);
        assert.deepEqual(await s3.objects(bucket), new Map());
      } finally {
        store.close();
      }
    });

    test('an unknown access key and a wrong region are refused', async () => {
      const unknown = openStore(bucket, join(dir, 'b'), { credentials: { ...s3.credentials, accessKeyId: 'SOMEONEELSE' } });
      const elsewhere = openStore(bucket, join(dir, 'c'), { region: 'us-west-2' });
      try {
        await assert.rejects(unknown.ping(), /failed: InvalidAccessKeyId/);
        await assert.rejects(elsewhere.ping(), /failed: AuthorizationHeaderMalformed .*the region 'us-west-2' is wrong/);
        await assert.rejects(elsewhere.writeBuffer(Buffer.from('x'), sha('x')), /failed: /);
      } finally {
        unknown.close();
        elsewhere.close();
      }
    });

    test('a missing bucket is named as such', async () => {
      const store = openStore('no-such-bucket', join(dir, 'd'));
      try {
        await assert.rejects(store.ping(), /s3:\/\/no-such-bucket\/larder\/blobs\/ .* failed: NoSuchBucket/);
      } finally {
        store.close();
      }
    });

    // In these two, the test's own time-out is the bound: a store that waits for the endpoint hangs the test.
    test('an endpoint that accepts connections and never answers is given up on, no hang', { timeout: 20_000 }, async () => {
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const endpoint = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
      const store = openStore(bucket, join(dir, 'e'), { endpoint, connectTimeoutMs: 300, requestTimeoutMs: 300, maxAttempts: 2 });
      try {
        await assert.rejects(store.ping(), (err: Error) => err.message.includes(`at ${endpoint} failed: `));
      } finally {
        store.close();
        for (const socket of sockets) socket.destroy();
        silent.close();
      }
    });

    test('an endpoint nobody listens on is given up on, no hang', { timeout: 20_000 }, async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const endpoint = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
      await new Promise((resolve) => probe.close(resolve));
      const store = openStore(bucket, join(dir, 'f'), { endpoint });
      try {
        await assert.rejects(store.has(sha('x')), /failed: ECONNREFUSED/);
      } finally {
        store.close();
      }
    });

    test("a write to an S3 that takes no PUTs fails after its deadline (four, for a body), not after the SDK's minute and a half", {
      timeout: 10_000,
    }, async () => {
      const store = openStore(bucket, join(dir, 'h'), { deadlineMs: 200 });
      await store.init();
      const tmp = store.tmpPath();
      await writeFile(tmp, 'never stored');
      await s3.freeze('PUT');
      try {
        await assert.rejects(store.commit(tmp, sha('never stored')), /S3 upload on s3:\/\/.* failed: DeadlineExceeded \(no answer within 800 ms\)$/);
      } finally {
        await s3.thaw();
        store.close();
      }
    });

    test('a download whose headers came in time streams on past the deadline', { timeout: 10_000 }, async () => {
      const store = openStore(bucket, join(dir, 'i'), { deadlineMs: 200 });
      await store.init();
      const bytes = randomBytes(8 * 1024 * 1024);
      // Stored by a patient store: only the read is under test, and an 8 MiB upload can take 800 ms on a busy machine.
      const writer = openStore(bucket, join(dir, 'i-writer'));
      await writer.init();
      await writer.writeBuffer(bytes, sha(bytes)).finally(() => writer.close());
      try {
        const body = await store.read(sha(bytes));
        // Past the deadline before the body is read: a deadline still armed would cut it.
        await new Promise((resolve) => setTimeout(resolve, 600));
        assert.ok(Buffer.concat(await body.toArray()).equals(bytes));
      } finally {
        store.close();
      }
    });

    test('without credentials or a region in the options, the standard AWS_* variables are used', async () => {
      // A child process, so that its environment is the only source the SDK's default chain finds.
      const script = `
        import { S3BlobStore } from './src/store/s3/s3-blob-store.ts';
        const store = new S3BlobStore({ location: process.argv[1], endpoint: process.argv[2], dataDir: process.argv[3], redirect: false });
        await store.init();
        await store.writeBuffer(Buffer.from('from the environment'), process.argv[4]);
        console.log(await store.has(process.argv[4]));
        store.close();`;
      const run = (env: Record<string, string>) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const home = join(dir, 'home');
          const args = ['--import', 'tsx', '--input-type=module', '-e', script, `s3://${bucket}/env`, s3.endpoint, join(dir, 'g'), sha('from the environment')];
          const child = spawn(process.execPath, args, {
            cwd: REPO,
            env: { PATH: process.env.PATH ?? '', HOME: home, AWS_EC2_METADATA_DISABLED: 'true', ...env },
          });
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d));
          child.stderr.on('data', (d: Buffer) => (out += d));
          child.once('exit', (code) => resolve({ code, out }));
        });
      const env = { AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey, AWS_REGION: s3.credentials.region };
      const good = await run(env);
      assert.equal(good.code, 0, good.out);
      assert.equal(good.out.trim(), 'true');
      const bad = await run({ ...env, AWS_SECRET_ACCESS_KEY: 'wrong' });
      assert.notEqual(bad.code, 0);
      assert.match(bad.out, /failed: (SignatureDoesNotMatch|AccessDenied)/);
    });
  });

  test('a small upload cut part-way leaves only a temporary key (s3rver keeps a partial object), which purgeTmp removes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'larder-s3-partial-'));
    const bucket = await s3.createBucket();
    const store = openStore(bucket, join(dir, 'data'));
    await store.init();
    const temporaryKeys = async () => [...(await storedBlobs(s3, store, bucket)).keys()].filter((key) => key.includes('/tmp/'));
    try {
      const bytes = randomBytes(300_000);
      const tmp = store.tmpPath('cut-small');
      await writeFile(tmp, bytes);
      await s3.cut('PUT', '/tmp/', 100_000);
      try {
        await assert.rejects(store.commit(tmp, sha(bytes)));
      } finally {
        await s3.uncut();
      }
      assert.equal(await store.has(sha(bytes)), false);
      const left = await temporaryKeys();
      assert.ok(left.length > 0, 's3rver keeps the cut PUT as a partial object at the temporary key');
      await store.purgeTmp();
      assert.deepEqual(await temporaryKeys(), left, 'young temporary keys may be another node’s uploads in flight: they stay');
      assert.equal(await store.purgeTmp(Date.now() + 60_000), left.length);
      assert.deepEqual(await temporaryKeys(), []);
    } finally {
      store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
