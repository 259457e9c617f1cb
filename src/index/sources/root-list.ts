/**
 * The upstream's project list, kept on disk (one `name<TAB>serial` line a project) so that a list of
 * 600,000 names is streamed, never held in memory. Refreshed after its TTL; a failed refresh keeps the old list.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from 'lmdb';
import type { Logger } from 'pino';
import type { StoreKey } from '../../store/meta-store.js';
import type { ProjectListBatch, ProjectListEntry } from '../model.js';
import { normalizeName } from '../names.js';
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
      for await (const entries of answer.entries) {
        for (const entry of entries) {
          if (/[\t\n\r]/.test(entry.name)) continue;
          batch += `${entry.name}\t${entry.serial ?? ''}\t${normalizeName(entry.name)}\n`;
          count++;
          if (entry.serial && entry.serial > maxSerial) maxSerial = entry.serial;
        }
        if (batch.length > 1 << 20) {
          await handle.write(batch);
          batch = '';
        }
      }
      // No fsync: the list can be fetched again; the rename below still keeps a half-written list invisible.
      await handle.write(batch);
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

  async *entries(): AsyncIterable<ProjectListBatch> {
    if (!this.record() || !(await this.haveFile())) {
      yield Array.from(this.cachedNames(), (name) => ({ name }));
      return;
    }
    let rest = '';
    for await (const chunk of createReadStream(this.path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const text = rest + (chunk as string);
      const lastNewline = text.lastIndexOf('\n');
      rest = text.slice(lastNewline + 1);
      yield parseLines(text.slice(0, lastNewline + 1));
    }
    if (rest) yield parseLines(`${rest}\n`);
  }
}

/** `name<TAB>serial<TAB>normalized` lines (serial may be empty). */
function parseLines(text: string): ProjectListEntry[] {
  const entries: ProjectListEntry[] = [];
  let start = 0;
  for (let end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
    const tab = text.indexOf('\t', start);
    if (tab <= start || tab > end) continue;
    const tab2 = text.indexOf('\t', tab + 1);
    const serialEnd = tab2 > tab && tab2 < end ? tab2 : end;
    const entry: ProjectListEntry = { name: text.slice(start, tab) };
    if (serialEnd > tab + 1) entry.serial = Number(text.slice(tab + 1, serialEnd));
    if (serialEnd < end) entry.normalized = text.slice(serialEnd + 1, end);
    entries.push(entry);
  }
  return entries;
}
