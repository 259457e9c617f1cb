/**
 * A real PostgreSQL for tests, from the Debian binaries (/usr/lib/postgresql/<version>/bin): a cluster in
 * a fresh temp dir on a free port of 127.0.0.1, run as the unprivileged `postgres` user when the tests run
 * as root (initdb refuses root), durability off for speed. Each test gets a database of its own; the
 * server can be stopped and started again on the same dir and port (database restarts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';

export interface TestPostgres {
  port: number;
  /** A new empty database; its URL. */
  createDatabase(): Promise<string>;
  /** Fast shutdown: connections are cut, as when the database goes away. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  cleanup(): Promise<void>;
}

const USER = 'larder';

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server binaries under ${root}/*/bin: install Debian's postgresql package (apt-get install postgresql)`);
  return join(root, newest, 'bin');
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'larder-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'log');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    await chown(dir, uid, gid);
  }
  // runuser is in /usr/sbin, which a PATH (such as CI's) may leave out.
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser'].find((path) => existsSync(path)) ?? 'runuser';
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? [runuser, ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
    if (result.error) throw new Error(`could not run ${file}: ${result.error.message}`);
    if (result.status !== 0) throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', data, '-U', USER, '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  let running = false;
  const start = async () => {
    run('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', log, '-o', options]);
    running = true;
  };
  const stop = async () => {
    if (!running) return;
    run('pg_ctl', ['stop', '-w', '-t', '60', '-m', 'fast', '-D', data]);
    running = false;
  };
  const stopAtExit = () => {
    if (running)
      spawnSync(asRoot ? runuser : join(bin, 'pg_ctl'), [
        ...(asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []),
        'stop',
        '-m',
        'immediate',
        '-D',
        data,
      ]);
  };
  process.once('exit', stopAtExit);
  await start();
  const admin = new pg.Pool({ connectionString: `postgres://${USER}@127.0.0.1:${port}/postgres`, max: 1 });
  admin.on('error', () => {});
  let databases = 0;
  return {
    port,
    async createDatabase() {
      const name = `test_${++databases}`;
      await admin.query(`CREATE DATABASE ${name}`);
      return `postgres://${USER}@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    async cleanup() {
      await admin.end();
      await stop();
      process.removeListener('exit', stopAtExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
