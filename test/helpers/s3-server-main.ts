/**
 * The test S3 server's process: s3rver on a private port behind the signing proxy, both on 127.0.0.1.
 * Arguments: directory accessKeyId secretAccessKey region. Prints one JSON line with both ports.
 */
import { createRequire } from 'node:module';
import { SigningProxy } from './s3-signing-proxy.js';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

const [directory, accessKeyId, secretAccessKey, region] = process.argv.slice(2);
if (!directory || !accessKeyId || !secretAccessKey || !region) throw new Error('usage: s3-server-main.ts directory accessKeyId secretAccessKey region');

// s3rver is CommonJS without type declarations.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
const { port: innerPort } = await s3rver.run();
const proxy = new SigningProxy({ credentials: { accessKeyId, secretAccessKey, region }, innerPort, directory });
const port = await proxy.listen();
process.stdout.write(`${JSON.stringify({ port, innerPort })}\n`);
const stop = () => void Promise.all([proxy.close(), s3rver.close()]).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
