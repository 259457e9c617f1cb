/**
 * S3 servers for tests, behind a proxy that checks SigV4 signatures, the access key and the region, and
 * injects faults (see s3-signing-proxy.ts), run as a child process on free ports so that its memory and
 * event loop are not the test's (the tests measure larder's memory while uploading) and it outlives a
 * killed larder. `startRealS3` runs Ceph's RADOS Gateway (ceph-cluster.ts; 10–20 s to start, the slow
 * tier); `startS3Server` runs s3rver, a fake in Node, for the fast tier's tests of what RGW cannot be made
 * to do (docs/scale-out.md, "The S3 servers of the tests", says which). Tests get fresh buckets and read
 * stored objects' raw bytes from behind the proxy.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBucketsOf } from './s3-bucket-reader.js';
import type { LoggedRequest } from './s3-signing-proxy.js';

export type { LoggedRequest } from './s3-signing-proxy.js';

const MAIN = fileURLToPath(new URL('./s3-server-main.ts', import.meta.url));

export interface TestS3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface TestS3Server {
  /** The signed endpoint (the proxy), for S3 clients. */
  endpoint: string;
  credentials: TestS3Credentials;
  /** Creates a fresh bucket and returns its name. */
  createBucket(): Promise<string>;
  /** Every stored object's key and exact stored bytes, in key order (from behind the proxy: not logged). */
  objects(bucket: string): Promise<Map<string, Buffer>>;
  /** Keys of multipart uploads begun and neither completed nor aborted. */
  pendingUploads(bucket: string): Promise<string[]>;
  /** Cuts requests of `method` whose target contains `match` once `afterBytes` of their body went through. */
  cut(method: string, match: string, afterBytes: number): Promise<void>;
  uncut(): Promise<void>;
  /**
   * Makes the server hang: it accepts connections and requests (of `method`, when given) but answers none
   * until `thaw`. RGW without a method is stopped itself (SIGSTOP); otherwise the proxy holds the requests.
   */
  freeze(method?: string): Promise<void>;
  /** Answers again: the proxy drops the requests it held; a stopped RGW continues (SIGCONT). */
  thaw(): Promise<void>;
  /** Every correctly signed request since the last call, which clears the list. */
  takeLog(): Promise<LoggedRequest[]>;
  close(): Promise<void>;
}

/** s3rver, a fake S3 in Node: starts at once; for faults RGW cannot be made to show. */
export function startS3Server(credentials: TestS3Credentials = defaultCredentials()): Promise<TestS3Server> {
  return startBehindProxy('s3rver', credentials);
}

/** Ceph's RADOS Gateway, a real S3: 10–20 s to start; needs Debian's ceph-mon, ceph-osd, radosgw and ceph-common, and root. */
export function startRealS3(credentials: TestS3Credentials = defaultCredentials()): Promise<TestS3Server> {
  return startBehindProxy('rgw', credentials);
}

async function startBehindProxy(backend: 's3rver' | 'rgw', credentials: TestS3Credentials): Promise<TestS3Server> {
  const dir = await mkdtemp(join(tmpdir(), `larder-${backend}-`));
  const child: ChildProcess = spawn(
    process.execPath,
    // s3rver's ListObjectsV2 continuation tokens are DES-encrypted, which OpenSSL 3 offers only from its legacy provider.
    ['--openssl-legacy-provider', '--import', 'tsx', MAIN, backend, dir, credentials.accessKeyId, credentials.secretAccessKey, credentials.region],
    // The child reads stdin only to notice that this process is gone (its end) and exit with it.
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const { port, innerPort, rgwPid } = await new Promise<{ port: number; innerPort: number; rgwPid: number | null }>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as { port: number; innerPort: number; rgwPid: number | null });
    });
    child.once('exit', (code) => reject(new Error(`the test S3 server (${backend}) exited (${code}):\n${out}`)));
  });
  const inner = `http://127.0.0.1:${innerPort}`;
  const endpoint = `http://127.0.0.1:${port}`;
  const control = (path: string, method: string) => fetch(`${endpoint}/__test/${path}`, { method }).then((res) => res.arrayBuffer());
  const proxyControls = {
    endpoint,
    credentials,
    async cut(method: string, match: string, afterBytes: number) {
      await control(`cut?${new URLSearchParams({ method, match, afterBytes: String(afterBytes) })}`, 'POST');
    },
    async uncut() {
      await control('cut', 'DELETE');
    },
    async takeLog() {
      return (await (await fetch(`${endpoint}/__test/log`, { method: 'DELETE' })).json()) as LoggedRequest[];
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  if (rgwPid !== null) {
    const reader = readBucketsOf(inner, credentials);
    let stopped = false;
    return {
      ...proxyControls,
      async createBucket() {
        const name = `larder-${randomBytes(6).toString('hex')}`;
        await reader.createBucket(name);
        return name;
      },
      objects: (bucket) => reader.objects(bucket),
      pendingUploads: (bucket) => reader.pendingUploads(bucket),
      async freeze(method) {
        if (method) return control(`freeze?method=${method}`, 'POST').then(() => {});
        process.kill(rgwPid, 'SIGSTOP');
        stopped = true;
      },
      async thaw() {
        if (stopped) process.kill(rgwPid, 'SIGCONT');
        stopped = false;
        await control('freeze', 'DELETE');
      },
      async close() {
        reader.close();
        await proxyControls.close();
      },
    };
  }
  const innerGet = async (path: string): Promise<Response> => {
    const res = await fetch(`${inner}${path}`);
    if (!res.ok) throw new Error(`s3rver GET ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    ...proxyControls,
    async createBucket() {
      const name = `larder-${randomBytes(6).toString('hex')}`;
      const res = await fetch(`${inner}/${name}`, { method: 'PUT' });
      if (!res.ok) throw new Error(`creating bucket ${name}: ${res.status}`);
      return name;
    },
    async objects(bucket) {
      const listing = await (await innerGet(`/${bucket}?list-type=2&max-keys=100000`)).text();
      const keys = [...listing.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => decodeXml(m[1]!)).sort();
      const objects = new Map<string, Buffer>();
      for (const key of keys) {
        const path = key.split('/').map(encodeURIComponent).join('/');
        objects.set(key, Buffer.from(await (await innerGet(`/${bucket}/${path}`)).arrayBuffer()));
      }
      return objects;
    },
    async pendingUploads(bucket) {
      const uploads = join(dir, bucket, '._S3rver_uploads');
      const ids = await readdir(uploads).catch(() => [] as string[]);
      // An upload completed or aborted since the listing is no longer pending.
      const keys = await Promise.all(ids.map((id) => readFile(join(uploads, id, 'key'), 'utf8').catch(() => null)));
      return keys.filter((key): key is string => key !== null);
    },
    async freeze(method) {
      await control(`freeze${method ? `?method=${method}` : ''}`, 'POST');
    },
    async thaw() {
      await control('freeze', 'DELETE');
    },
  };
}

/** The settings of a larder whose blob store is `prefix` in `bucket` of the test server. */
export function blobStoreSettings(s3: TestS3Server, bucket: string, prefix = 'larder') {
  return { blobStore: `s3://${bucket}/${prefix}`, s3Endpoint: s3.endpoint, s3Region: s3.credentials.region };
}

export function defaultCredentials(): TestS3Credentials {
  return { accessKeyId: 'LARDERTESTKEY', secretAccessKey: 'larder-test-secret', region: 'eu-test-1' };
}

/**
 * Puts the test servers' credentials where the S3 client finds them the standard way (the AWS_* variables
 * of this process), for the larders a test runs in this process. Every test server has the same ones, and
 * they are left set: test files that share one process (test/run-sharded.sh) must not unset them for another.
 */
export function exportTestCredentials(): void {
  const { accessKeyId, secretAccessKey } = defaultCredentials();
  process.env.AWS_ACCESS_KEY_ID = accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = secretAccessKey;
}

const decodeXml = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|apos|#\d+);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e] ?? String.fromCharCode(Number(e.slice(1))),
  );
