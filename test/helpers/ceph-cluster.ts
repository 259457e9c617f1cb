/**
 * A throwaway Ceph for tests, from Debian's packages (ceph-mon, ceph-osd, radosgw, ceph-common): one monitor,
 * one OSD keeping its objects in bluestore on a sparse file, and one RADOS Gateway (S3) on 127.0.0.1, all
 * under one directory, started in about 10 s. The daemons run in the foreground as children of the process
 * that calls `startCephCluster`, each with a parent-death signal, so they die with it however it ends.
 * The S3 user is made with the keys the caller gives.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

export interface CephCluster {
  /** The gateway's S3 port on 127.0.0.1. */
  rgwPort: number;
  /** The gateway's process (a test can stop and continue it to make S3 hang). */
  rgwPid: number;
  /** Kills the daemons (a throwaway cluster needs no clean shutdown). */
  stop(): Promise<void>;
}

export interface CephClusterOptions {
  /** An empty directory for the cluster's configuration, data, logs and sockets. */
  dir: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const PACKAGES = 'ceph-mon ceph-osd radosgw ceph-common';
const COMMANDS = ['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph', 'ceph-authtool', 'monmaptool', 'setpriv'];
const START_MS = 120_000;
const run = promisify(execFile);

async function onPath(command: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (
      dir &&
      (await access(join(dir, command), constants.X_OK).then(
        () => true,
        () => false,
      ))
    )
      return true;
  }
  return false;
}

async function requireCommands(): Promise<void> {
  const missing: string[] = [];
  for (const command of COMMANDS) if (!(await onPath(command))) missing.push(command);
  if (missing.length) {
    throw new Error(`the real S3 of the tests needs Debian's Ceph: ${missing.join(', ')} missing (apt-get install ${PACKAGES})`);
  }
  if (process.getuid?.() !== 0) throw new Error('the test Ceph cluster runs its daemons as root: run the tests as root');
}

function configuration(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  // Messenger v2 only, on ports from a range of its own, so that two clusters (two test files) can run at once.
  const portMin = 40_000 + Math.floor(Math.random() * 200) * 100;
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr1 = false
ms bind port min = ${portMin}
ms bind port max = ${portMin + 99}
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = ${dir}/keyring
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
pid file = ${dir}/run/$name.pid
log file = ${dir}/log/$name.log
crash dir = ${dir}/log/crash
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 1
osd pool default pgp num = 1
paxos propose interval = 0.1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail warn = 2
mon data avail crit = 1
mon max pg per osd = 1000

[mon.a]
mon data = ${dir}/mon

[osd.0]
osd data = ${dir}/osd0
osd objectstore = bluestore
bluestore block path = ${dir}/osd0.block
bluestore block create = true
bluestore block size = 21474836480
bluestore fsck on mkfs = false
bluestore fsck on mount = false
bluestore cache autotune = false
bluestore cache size = 134217728
osd memory target = 939524096

[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
rgw thread pool size = 64
`;
}

export async function startCephCluster(options: CephClusterOptions): Promise<CephCluster> {
  await requireCommands();
  const { dir } = options;
  for (const sub of ['run', 'log', 'mon', 'osd0', 'rgw']) await mkdir(join(dir, sub), { recursive: true });
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  const conf = join(dir, 'ceph.conf');
  const fsid = randomUUID();
  await writeFile(conf, configuration(dir, fsid, monPort, rgwPort));
  const env = { ...process.env, CEPH_CONF: conf };
  const tool = async (command: string, args: string[]) => {
    try {
      return (await run(command, ['--conf', conf, ...args], { env, timeout: START_MS })).stdout;
    } catch (err) {
      throw new Error(`${command} ${args.join(' ')} failed (logs in ${dir}/log): ${(err as Error).message}`);
    }
  };
  const daemons: ChildProcess[] = [];
  const daemon = (command: string, args: string[]) => {
    // setpriv: the daemon gets SIGKILL when its parent (this process) dies, even by SIGKILL.
    const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', command, '-f', '--conf', conf, ...args], { env, stdio: 'ignore' });
    daemons.push(child);
    return child;
  };
  const stop = async () => {
    await Promise.all(
      daemons.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
  };
  try {
    // Every key, with its capabilities, goes into the monitor's database when it is made.
    const keyring = join(dir, 'keyring');
    await run('ceph-authtool', ['--create-keyring', keyring, '--gen-key', '-n', 'mon.', '--cap', 'mon', 'allow *']);
    const keys: [string, string[]][] = [
      ['client.admin', ['mon', 'allow *', 'osd', 'allow *', 'mgr', 'allow *']],
      ['osd.0', ['mon', 'allow profile osd', 'mgr', 'allow profile osd', 'osd', 'allow *']],
      ['client.rgw.a', ['mon', 'allow rw', 'osd', 'allow rwx']],
    ];
    for (const [name, caps] of keys) {
      const capArgs = caps.flatMap((value, i) => (i % 2 === 0 ? ['--cap', value] : [value]));
      await run('ceph-authtool', [keyring, '--gen-key', '-n', name, ...capArgs]);
    }
    await run('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, join(dir, 'monmap')]);
    await tool('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap'), '--keyring', keyring]);
    daemon('ceph-mon', ['-i', 'a']);
    const osdUuid = randomUUID();
    // The OSD's store is made while the monitor starts; registering the OSD needs the monitor.
    const mkfs = tool('ceph-osd', ['-i', '0', '--mkfs', '--osd-uuid', osdUuid, '--keyring', keyring]);
    const id = (await tool('ceph', ['--connect-timeout', '60', 'osd', 'new', osdUuid, '0'])).trim();
    if (id !== '0') throw new Error(`ceph osd new gave the OSD id ${id}, not 0`);
    await mkfs;
    daemon('ceph-osd', ['-i', '0', '--keyring', keyring]);
    const rgw = daemon('radosgw', ['-n', 'client.rgw.a', '--keyring', keyring]);
    // The user is written to RADOS, so this waits for the OSD like the gateway does.
    await tool('radosgw-admin', [
      'user',
      'create',
      '--uid=larder',
      '--display-name=larder',
      `--access-key=${options.accessKeyId}`,
      `--secret-key=${options.secretAccessKey}`,
    ]);
    await waitForGateway(rgwPort, rgw, dir);
    return { rgwPort, rgwPid: rgw.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitForGateway(port: number, rgw: ChildProcess, dir: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (rgw.exitCode !== null || rgw.signalCode !== null) throw new Error(`radosgw exited (${rgw.exitCode ?? rgw.signalCode}); logs in ${dir}/log`);
    const answered = await fetch(`http://127.0.0.1:${port}/`).then(
      (res) => res.arrayBuffer().then(() => true),
      () => false,
    );
    if (answered) return;
    if (Date.now() - started > START_MS) throw new Error(`radosgw did not answer on port ${port} within ${START_MS / 1000} s; logs in ${dir}/log`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
