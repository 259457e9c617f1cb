/**
 * The real S3 of the tests (test/helpers/ceph-cluster.ts behind startRealS3): it fails loudly, naming the
 * packages, when Ceph is missing; its daemons and directory go when the test process dies, even by SIGKILL;
 * its daemons go when the process that started them is killed; the proxy in front refuses a wrong region,
 * which the gateway itself would take; and a frozen gateway answers nothing until thawed.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '../../src/store/s3/s3-client.js';
import { REPO } from '../helpers/child-server.js';
import { eventually } from '../helpers/eventually.js';
import { startRealS3 } from '../helpers/s3-server.js';

const SCRIPT = `
  import { startRealS3 } from './test/helpers/s3-server.ts';
  const s3 = await startRealS3();
  console.log(JSON.stringify({ endpoint: s3.endpoint }));
  setInterval(() => {}, 1 << 30);`;

let temp: string;
before(async () => {
  temp = await mkdtemp(join(tmpdir(), 'larder-ceph-helper-'));
});
after(() => rm(temp, { recursive: true, force: true }));

/** A test process of its own that starts a real S3 with its temporary files under `dir`, and its output. */
function startTestProcess(dir: string, path = process.env.PATH ?? ''): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: REPO,
    env: { ...process.env, TMPDIR: dir, PATH: path },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  return { child, output: () => out };
}

/** Processes whose command line names `dir`: pid → command line. */
function processesNaming(dir: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const line of execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n')) {
    const m = /^\s*(\d+) (.*)$/.exec(line);
    if (m && m[2]!.includes(dir)) found.set(Number(m[1]), m[2]!);
  }
  return found;
}

async function clusterUp(dir: string): Promise<{ child: ChildProcess; clusterDir: string }> {
  const { child, output } = startTestProcess(dir);
  await eventually(() => output().includes('"endpoint"') || child.exitCode !== null, 'the real S3 is up', 120_000);
  assert.match(output(), /"endpoint"/, output());
  const [name] = (await readdir(dir)).filter((entry) => entry.startsWith('larder-rgw-'));
  const clusterDir = join(dir, name!);
  const daemons = [...processesNaming(clusterDir).values()];
  for (const daemon of ['ceph-mon', 'ceph-osd', 'radosgw'])
    assert.ok(
      daemons.some((args) => args.startsWith(`${daemon} `)),
      `${daemon} runs`,
    );
  return { child, clusterDir };
}

test('without Ceph on the PATH the start fails, naming the packages to install', { timeout: 60_000 }, async () => {
  const { child, output } = startTestProcess(temp, dirname(process.execPath));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  assert.notEqual(code, 0);
  assert.match(output(), /needs Debian's Ceph: ceph-mon, ceph-osd, radosgw, .* missing \(apt-get install ceph-mon ceph-osd radosgw ceph-common\)/);
});

test('when the test process is killed, the daemons stop and the directory is removed', { timeout: 180_000 }, async () => {
  const dir = await mkdtemp(join(temp, 'killed-'));
  const { child, clusterDir } = await clusterUp(dir);
  child.kill('SIGKILL');
  await eventually(() => processesNaming(clusterDir).size === 0, 'no process of the cluster is left', 20_000);
  await eventually(async () => !(await stat(clusterDir).catch(() => null)), 'the directory is removed', 20_000);
});

test('when the process that started the daemons is killed, the daemons die with it', { timeout: 180_000 }, async () => {
  const dir = await mkdtemp(join(temp, 'parent-'));
  const { child, clusterDir } = await clusterUp(dir);
  try {
    const [main] = [...processesNaming(clusterDir)].find(([, args]) => args.includes('s3-server-main.ts')) ?? [];
    assert.ok(main, 'the S3 server process');
    process.kill(main, 'SIGKILL');
    await eventually(() => processesNaming(clusterDir).size === 0, 'no daemon is left', 20_000);
  } finally {
    child.kill('SIGKILL');
  }
});

test('the proxy refuses a wrong region before RGW; a frozen gateway answers nothing until thawed', { timeout: 180_000 }, async () => {
  const s3 = await startRealS3();
  const client = createS3Client({ endpoint: s3.endpoint, region: s3.credentials.region, credentials: s3.credentials, deadlineMs: 1000 });
  const elsewhere = createS3Client({ endpoint: s3.endpoint, region: 'us-east-1', credentials: s3.credentials });
  try {
    const Bucket = await s3.createBucket();
    await client.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'bytes' }));
    await assert.rejects(elsewhere.send(new GetObjectCommand({ Bucket, Key: 'k' })), /the region 'us-east-1' is wrong; expecting 'eu-test-1'/);
    await s3.freeze();
    await assert.rejects(client.send(new GetObjectCommand({ Bucket, Key: 'k' })), /no answer within 1 s/);
    await s3.thaw();
    const answer = await client.send(new GetObjectCommand({ Bucket, Key: 'k' }));
    assert.equal(await answer.Body!.transformToString(), 'bytes');
  } finally {
    client.destroy();
    elsewhere.destroy();
    await s3.close();
  }
});
