/**
 * Larders sharing one PostgreSQL database and one S3 bucket, before a fake upstream that answers ranges,
 * for the tests of shared first downloads (docs/scale-out.md): nodes in this process, and nodes as child
 * processes that a test can kill. Each client request records when its first bytes came and what the
 * upstream was doing then.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Settings } from '../../src/config/schema.js';
import { startFakeUpstream, type FakeUpstream, type LoggedRequest } from '../fixtures/fake-upstream.js';
import { startChildServer, type ChildServer } from './child-server.js';
import { startLarder, type TestLarder } from './larder.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { exportTestCredentials, startS3Server, type TestS3Server } from './s3-server.js';

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface ClientRead {
  status: number;
  /** The body; null when it broke off (the error in `error`). */
  bytes: Buffer | null;
  error: string | null;
  /** ms from the request to its first body bytes (null: none came). */
  firstAfterMs: number | null;
  /** Bytes the upstream had sent for the file when this client's first bytes came. */
  upstreamSentAtFirst: number | null;
}

export interface SharedDownloadPool {
  tmp: string;
  upstream: FakeUpstream;
  s3: TestS3Server;
  bucket: string;
  /** Settings of every node. */
  shared: Partial<Settings>;
  /** A node in this process (closed with the pool). */
  node(overrides?: Partial<Settings>): Promise<TestLarder>;
  /** A node as a child process (`larder serve`), to kill. */
  child(): Promise<ChildServer>;
  /** Reads a file through `base`, noting when its first bytes came (and telling `onFirst`). */
  read(base: string, project: string, filename: string, onFirst?: () => void): Promise<ClientRead>;
  /** The upstream's GETs of `filename`. */
  gets(filename: string): LoggedRequest[];
  /** Keys of the download parts left in the bucket. */
  partKeys(): Promise<string[]>;
  close(): Promise<void>;
}

/** `startS3`: the S3 server to run (the slow tier's real one, say). */
export async function startSharedDownloadPool(startS3: () => Promise<TestS3Server> = startS3Server): Promise<SharedDownloadPool> {
  const tmp = await mkdtemp(join(tmpdir(), 'larder-shared-dl-'));
  let pg: TestPostgres | undefined;
  let s3: TestS3Server | undefined;
  let upstream: FakeUpstream | undefined;
  const nodes: TestLarder[] = [];
  const children: ChildServer[] = [];
  try {
    [pg, s3, upstream] = await Promise.all([startPostgres(), startS3(), startFakeUpstream({ ranges: true })]);
  } catch (err) {
    await Promise.all([pg?.cleanup(), s3?.close(), upstream?.close()]);
    throw err;
  }
  const bucket = await s3.createBucket();
  exportTestCredentials();
  const shared: Partial<Settings> = {
    databaseUrl: await pg.createDatabase(),
    blobStore: `s3://${bucket}/larder`,
    s3Endpoint: s3.endpoint,
    s3Region: s3.credentials.region,
    upstream: upstream.url,
    // Far beyond every wait of the tests: a node that completes a download did not wait this out.
    sharedDownloadWait: 600_000,
  };
  const gets = (filename: string) => upstream!.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/${filename}`));
  return {
    tmp,
    upstream,
    s3,
    bucket,
    shared,
    async node(overrides = {}) {
      const node = await startLarder({ ...shared, ...overrides });
      nodes.push(node);
      return node;
    },
    async child() {
      const env: Record<string, string> = {
        LARDER_DATA: await mkdtemp(join(tmp, 'child-')),
        LARDER_DATABASE_URL: shared.databaseUrl!,
        LARDER_BLOB_STORE: shared.blobStore!,
        LARDER_S3_ENDPOINT: s3!.endpoint,
        LARDER_S3_REGION: s3!.credentials.region,
        LARDER_UPSTREAM: upstream!.url,
        LARDER_SHARED_DOWNLOAD_WAIT: '10m',
        LARDER_LOG_LEVEL: 'info',
        AWS_ACCESS_KEY_ID: s3!.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3!.credentials.secretAccessKey,
      };
      const child = await startChildServer([], env);
      children.push(child);
      return child;
    },
    async read(base, project, filename, onFirst) {
      const started = performance.now();
      const res = await fetch(`${base}/packages/${project}/${filename}`);
      if (res.status !== 200) onFirst?.();
      const read: ClientRead = { status: res.status, bytes: null, error: null, firstAfterMs: null, upstreamSentAtFirst: null };
      const chunks: Uint8Array[] = [];
      try {
        for await (const chunk of res.body ?? []) {
          if (read.firstAfterMs === null) {
            read.firstAfterMs = performance.now() - started;
            read.upstreamSentAtFirst = gets(filename).reduce((sum, r) => sum + r.bytesSent, 0);
            onFirst?.();
          }
          chunks.push(chunk);
        }
        read.bytes = Buffer.concat(chunks);
      } catch (err) {
        read.error = String((err as Error).cause ?? err);
      }
      return read;
    },
    gets,
    async partKeys() {
      // A part removed between the listing and the read of its bytes: still there a moment ago.
      const objects = await s3!.objects(bucket).catch(() => new Map([['larder/tmp/parts/(being removed)', Buffer.alloc(0)]]));
      return [...objects.keys()].filter((key) => key.includes('/tmp/parts/'));
    },
    async close() {
      await Promise.all(children.map((c) => (c.alive() ? c.stop('SIGKILL') : null)));
      await Promise.all(nodes.map((n) => n.close()));
      await Promise.all([pg?.cleanup(), s3?.close(), upstream?.close()]);
      await rm(tmp, { recursive: true, force: true });
    },
  };
}
