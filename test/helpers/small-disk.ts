/**
 * The real `larder serve` CLI with its data directory on a small tmpfs, mounted in a private mount namespace
 * (`unshare -m` as root, `unshare -rm` otherwise) so that the mount exists only for the larder process and
 * goes away with it; nothing is mounted on the host. This process reaches the files through
 * `/proc/<pid>/root/<dir>` (larder is exec'd, so the child's pid is larder's).
 */
import { spawn } from 'node:child_process';
import type { Dirent } from 'node:fs';
import { mkdtemp, open, readdir, rm, stat, statfs, truncate, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startChildServer, type ChildServer, type ExitStatus } from './child-server.js';

export const DEFAULT_DISK_BYTES = 48 * 1024 * 1024;
const FILLER = 'small-disk-filler.bin';

export class SmallDiskUnavailable extends Error {
  override name = 'SmallDiskUnavailable';
}

export interface SmallDiskOptions {
  /** Size of the tmpfs. Default 48 MiB. */
  bytes?: number;
  /** More `larder serve` arguments (`--upstream …`, `--disk-reserve …`); `--data` is set by the helper. */
  args?: string[];
  env?: Record<string, string>;
  startTimeoutMs?: number;
}

export interface DiskFile {
  /** Relative to the data directory, e.g. `tmp/download-…`, `blobs/ab/…`. */
  path: string;
  size: number;
}

export interface SmallDiskServer {
  url: string;
  server: ChildServer;
  pid: number;
  /** The data directory as larder sees it (inside its namespace; empty on the host). */
  dataDir: string;
  /** The same directory from this process: `/proc/<pid>/root<dataDir>` (gone once larder exits). */
  hostPath: string;
  /** Size of the filesystem. */
  bytes: number;
  /** Bytes free now (statfs: available blocks × block size), as `df` shows. */
  free(): Promise<number>;
  /** Writes (or shrinks) a filler file so that about `leaveFreeBytes` stay free; returns the bytes free after. */
  fill(leaveFreeBytes: number): Promise<number>;
  /** Removes the filler file. */
  freeFiller(): Promise<void>;
  /** Files under the data directory, or under `sub` of it (`tmp`, `blobs`); the filler is left out. */
  files(sub?: string): Promise<DiskFile[]>;
  alive(): boolean;
  exitStatus(): ExitStatus | null;
  exited: Promise<ExitStatus>;
  output(): string;
  /** Stops larder (SIGTERM by default; SIGKILL after 10 s) and removes the mount point. */
  stop(signal?: NodeJS.Signals): Promise<ExitStatus>;
}

function launcher(bytes: number, dir: string): (node: string, args: string[]) => { command: string; args: string[] } {
  const asRoot = process.getuid?.() === 0;
  return (node, args) => ({
    command: 'unshare',
    args: [
      '--mount',
      '--propagation',
      'private',
      ...(asRoot ? [] : ['--map-root-user']),
      '--',
      'sh',
      '-c',
      'mount -t tmpfs -o "size=$1" tmpfs "$2" && shift 2 && exec "$@"',
      'sh',
      String(bytes),
      dir,
      node,
      ...args,
    ],
  });
}

let support: Promise<string | null> | null = null;

/** Null when a private tmpfs can be mounted here, else why not (for `t.skip`). */
export function smallDiskUnavailable(): Promise<string | null> {
  support ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'larder-small-disk-probe-'));
    try {
      const { command, args } = launcher(1024 * 1024, dir)('true', []);
      const result = await new Promise<{ code: number | null; text: string }>((resolve) => {
        let text = '';
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.stderr.on('data', (d: Buffer) => (text += d.toString()));
        child.once('error', (err) => resolve({ code: null, text: err.message }));
        child.once('close', (code) => resolve({ code, text }));
      });
      if (result.code === 0) return null;
      return `cannot mount a private tmpfs (${command} ${args.slice(0, 4).join(' ')} …): ${result.text.trim() || `exit ${result.code}`}`;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return support;
}

async function walk(root: string, dir: string, out: DiskFile[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(root, path, out);
    else if (entry.name !== FILLER || dir !== root) {
      const size = await stat(path).then(
        (s) => s.size,
        () => null,
      );
      if (size !== null) out.push({ path: relative(root, path), size });
    }
  }
}

/** Throws SmallDiskUnavailable when the namespace or the mount is not permitted here. */
export async function startSmallDisk(opts: SmallDiskOptions = {}): Promise<SmallDiskServer> {
  const reason = await smallDiskUnavailable();
  if (reason) throw new SmallDiskUnavailable(reason);
  const bytes = opts.bytes ?? DEFAULT_DISK_BYTES;
  const dataDir = await mkdtemp(join(tmpdir(), 'larder-small-disk-'));
  let server: ChildServer;
  try {
    server = await startChildServer(['--data', dataDir, ...(opts.args ?? [])], opts.env, {
      launch: launcher(bytes, dataDir),
      startTimeoutMs: opts.startTimeoutMs,
    });
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const pid = server.child.pid!;
  const hostPath = `/proc/${pid}/root${dataDir}`;
  const filler = join(hostPath, FILLER);

  const fs = async () => statfs(hostPath);
  const free = async () => {
    const s = await fs();
    return s.bavail * s.bsize;
  };

  return {
    url: server.url,
    server,
    pid,
    dataDir,
    hostPath,
    bytes,
    free,
    async fill(leaveFreeBytes) {
      const { bsize } = await fs();
      const now = await free();
      if (now > leaveFreeBytes) {
        let todo = Math.floor((now - leaveFreeBytes) / bsize) * bsize;
        const handle = await open(filler, 'a');
        const block = Buffer.alloc(1 << 20, 0x5a);
        try {
          while (todo > 0) {
            const { bytesWritten } = await handle.write(block, 0, Math.min(todo, block.length));
            todo -= bytesWritten;
          }
        } catch (err) {
          // Larder took some of the space meanwhile: the disk is as full as it gets.
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        } finally {
          await handle.close();
        }
      } else if (now < leaveFreeBytes) {
        const size = await stat(filler).then(
          (s) => s.size,
          () => 0,
        );
        const release = Math.ceil((leaveFreeBytes - now) / bsize) * bsize;
        if (size > 0) await truncate(filler, Math.max(0, Math.floor((size - release) / bsize) * bsize));
      }
      return free();
    },
    async freeFiller() {
      await unlink(filler).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
    async files(sub) {
      const out: DiskFile[] = [];
      await walk(hostPath, sub ? join(hostPath, sub) : hostPath, out);
      return out.sort((a, b) => (a.path < b.path ? -1 : 1));
    },
    alive: () => server.alive(),
    exitStatus: () => server.exitStatus(),
    exited: server.exited,
    output: () => server.output(),
    async stop(signal = 'SIGTERM') {
      const timer = setTimeout(() => server.stop('SIGKILL'), 10_000);
      try {
        return await server.stop(signal);
      } finally {
        clearTimeout(timer);
        // The mount went with larder's namespace: only the empty mount point is left on the host.
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
