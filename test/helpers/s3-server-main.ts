/**
 * The test S3 server's process: s3rver, or a throwaway Ceph with its RADOS Gateway (ceph-cluster.ts), on a
 * private port behind the signing proxy, all on 127.0.0.1. Arguments: s3rver|rgw directory accessKeyId
 * secretAccessKey region. Prints one JSON line with the ports (and the gateway's process). It stops, taking
 * the Ceph daemons and the directory with it, on SIGTERM or when its stdin ends (the test process is gone).
 */
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { startCephCluster } from './ceph-cluster.js';
import { SigningProxy } from './s3-signing-proxy.js';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

const [backend, directory, accessKeyId, secretAccessKey, region] = process.argv.slice(2);
if ((backend !== 's3rver' && backend !== 'rgw') || !directory || !accessKeyId || !secretAccessKey || !region) {
  throw new Error('usage: s3-server-main.ts s3rver|rgw directory accessKeyId secretAccessKey region');
}

let innerPort: number;
let rgwPid: number | null = null;
let stopInner: () => Promise<void>;
if (backend === 'rgw') {
  const cluster = await startCephCluster({ dir: directory, accessKeyId, secretAccessKey });
  ({ rgwPort: innerPort, rgwPid } = cluster);
  stopInner = cluster.stop;
} else {
  // s3rver is CommonJS without type declarations.
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  ({ port: innerPort } = await s3rver.run());
  stopInner = () => s3rver.close();
}
const inner = backend === 'rgw' ? { kind: 'rgw' as const } : { kind: 's3rver' as const, directory };
const proxy = new SigningProxy({ credentials: { accessKeyId, secretAccessKey, region }, innerPort, inner });
const port = await proxy.listen();
process.stdout.write(`${JSON.stringify({ port, innerPort, rgwPid })}\n`);
const stop = () =>
  void Promise.all([proxy.close(), stopInner()])
    .then(() => rm(directory, { recursive: true, force: true }))
    .then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
