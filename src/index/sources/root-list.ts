/**
 * The upstream's project list, kept on disk (one `name<TAB>serial` line a project) so that a list of
 * 600,000 names is streamed, never held in memory. Refreshed after its TTL; a failed refresh keeps the old list.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Database } from 'lmdb';
import type { Logger } from 'pino';
import type { StoreKey } from '../../store/meta-store.js';
import type { ProjectListEntry } from '../model.js';
import type { UpstreamSource, Validators } from './upstream-source.js';

interface RootRecord {
  fetchedAt: number;
  validators: Validators;
  serial: number;
  count: number;
}

const ROOT_KEY = ['root'];

export class RootList {
  private readonly path: string;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly upstream: UpstreamSource,
    private readonly db: Database<unknown, StoreKey>,
    cacheDir: string,
    private readonly ttl: number,
    private readonly offline: boolean,
    private readonly logger: Logger,
    /** Names of cached projects: the list offered when there is no stored upstream list and no way to get one. */
    private readonly cachedNames: () => Iterable<string>,
    /** How many cached projects there are (part of that list's version). */
    private readonly cachedCount: () => number,
  ) {
    this.path = join(cacheDir, 'upstream-root.txt');
  }

  private record(): RootRecord | undefined {
    return this.db.get(ROOT_KEY) as RootRecord | undefined;
  }

  private async haveFile(): Promise<boolean> {
    return stat(this.path).then(() => true, () => false);
  }

  /** Makes sure the list is fresh enough (or as fresh as the upstream allows) and names its version. */
  async version(): Promise<string> {
    const record = this.record();
    const have = record !== undefined && (await this.haveFile());
    if (!this.offline && (!have || Date.now() - record!.fetchedAt >= this.ttl)) {
      this.refreshing ??= this.refresh(have ? record : undefined).finally(() => (this.refreshing = null));
      try {
        await this.refreshing;
      } catch (err) {
        this.logger.warn(
          { err: (err as Error).message },
          have ? 'upstream project list refresh failed; serving the stored list' : 'upstream project list unavailable; listing the cached projects',
        );
      }
    }
    const now = this.record();
    if (!now || !(await this.haveFile())) return `cached-projects:${this.cachedCount()}`;
    return `root:${now.fetchedAt}:${now.count}`;
  }

  lastSerial(): number {
    return this.record()?.serial ?? 0;
  }

  private async refresh(previous: RootRecord | undefined): Promise<void> {
    const answer = await this.upstream.fetchRoot(previous?.validators);
    if (answer.status === 'not-modified') {
      await this.db.put(ROOT_KEY, { ...previous!, fetchedAt: Date.now() });
      return;
    }
    await mkdir(join(this.path, '..'), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    const handle = await open(tmp, 'w');
    let count = 0;
    let maxSerial = 0;
    try {
      let batch = '';
      for await (const entry of answer.entries) {
        if (/[\t\n\r]/.test(entry.name)) continue;
        batch += `${entry.name}\t${entry.serial ?? ''}\n`;
        count++;
        if (entry.serial && entry.serial > maxSerial) maxSerial = entry.serial;
        if (batch.length > 1 << 16) {
          await handle.write(batch);
          batch = '';
        }
      }
      await handle.write(batch);
      await handle.sync();
    } catch (err) {
      await handle.close();
      await unlink(tmp).catch(() => {});
      throw err;
    }
    await handle.close();
    await rename(tmp, this.path);
    await this.db.put(ROOT_KEY, {
      fetchedAt: Date.now(),
      validators: answer.validators,
      serial: Math.max(answer.serial ?? 0, maxSerial, previous?.serial ?? 0),
      count,
    } satisfies RootRecord);
  }

  async *entries(): AsyncIterable<ProjectListEntry> {
    if (!this.record() || !(await this.haveFile())) {
      for (const name of this.cachedNames()) yield { name };
      return;
    }
    const lines = createInterface({ input: createReadStream(this.path, { highWaterMark: 1 << 16 }), crlfDelay: Infinity });
    for await (const line of lines) {
      const tab = line.indexOf('\t');
      if (tab <= 0) continue;
      const serial = line.slice(tab + 1);
      yield serial ? { name: line.slice(0, tab), serial: Number(serial) } : { name: line.slice(0, tab) };
    }
  }
}
