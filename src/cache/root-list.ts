/**
 * The upstream's project list, kept on disk (one `name<TAB>serial` line a project) so that a list of
 * 600,000 names is streamed, never held in memory. Refreshed after its TTL; a failed refresh keeps the old
 * list. A request waits for a refresh only when there is no stored list to offer: otherwise the stored
 * list's version is named at once (its rendering is on disk, also after a restart) and the refresh goes on.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import { diskFullError, type DiskSpace } from '../store/disk-space.js';
import type { RootListRecord } from '../store/records.js';
import type { UpstreamDocumentStore } from '../store/upstream-document-store.js';
import type { ProjectListBatch, ProjectListEntry } from '../model/documents.js';
import { normalizeName } from '../model/names.js';
import type { UpstreamFetcher } from '../upstream/upstream-fetcher.js';

/** The list is written in batches of about this size; the disk's reserve is checked before each. */
const BATCH_CHARS = 1 << 20;

export interface RootListOptions {
  /** Where the upstream's project list is kept between runs (the data layout names it). */
  rootListFile: string;
  ttl: number;
  offline: boolean;
  clock: Clock;
  space: DiskSpace;
  logger: Logger;
  /** Names of cached projects: the list offered when there is no stored upstream list and no way to get one. */
  cachedNames: () => Iterable<string>;
  /** How many cached projects there are (part of that list's version). */
  cachedCount: () => number;
}

/**
 * A list version with the stored upstream list's own part left out: two versions of one family differ only
 * in which upstream list they were made from (a refresh), not in private projects, policy or mode.
 */
export function listFamily(version: string): string {
  return version.replace(/root:\d+:\d+/g, 'root');
}

export class RootList {
  private readonly path: string;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly upstream: UpstreamFetcher,
    private readonly docs: UpstreamDocumentStore,
    private readonly options: RootListOptions,
  ) {
    this.path = options.rootListFile;
  }

  private record(): RootListRecord | undefined {
    return this.docs.getRootList();
  }

  private async haveFile(): Promise<boolean> {
    return stat(this.path).then(
      () => true,
      () => false,
    );
  }

  /** Makes sure the list is fresh enough (or as fresh as the upstream allows) and names its version. */
  async version(): Promise<string> {
    const { offline, clock, ttl, logger } = this.options;
    const record = this.record();
    const have = record !== undefined && (await this.haveFile());
    if (!offline && (!have || clock.now() - record!.fetchedAt >= ttl)) {
      this.refreshing ??= this.refresh(have ? record : undefined)
        .catch((err: Error) => {
          logger.warn(
            { err: err.message },
            have ? 'upstream project list refresh failed; serving the stored list' : 'upstream project list unavailable; listing the cached projects',
          );
        })
        .finally(() => (this.refreshing = null));
      if (!have) await this.refreshing;
    }
    const now = this.record();
    if (!now || !(await this.haveFile())) return `cached-projects:${this.options.cachedCount()}`;
    // The content's time, not the fetch's: a refresh the upstream answers 304 keeps the renderings.
    return `root:${now.writtenAt ?? now.fetchedAt}:${now.count}`;
  }

  lastSerial(): number {
    return this.record()?.serial ?? 0;
  }

  private async refresh(previous: RootListRecord | undefined): Promise<void> {
    const answer = await this.upstream.fetchRoot(previous?.validators);
    const { clock } = this.options;
    if (answer.status === 'not-modified') {
      await this.docs.putRootList({ ...previous!, writtenAt: previous!.writtenAt ?? previous!.fetchedAt, fetchedAt: clock.now() });
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
        if (batch.length > BATCH_CHARS) {
          await this.write(handle, batch);
          batch = '';
        }
      }
      // No fsync: the list can be fetched again; the rename below still keeps a half-written list invisible.
      await this.write(handle, batch);
    } catch (err) {
      await handle.close();
      await unlink(tmp).catch(() => {});
      throw err;
    }
    await handle.close();
    await rename(tmp, this.path);
    await this.docs.putRootList({
      fetchedAt: clock.now(),
      writtenAt: clock.now(),
      validators: answer.validators,
      serial: Math.max(answer.serial ?? 0, maxSerial, previous?.serial ?? 0),
      count,
    });
  }

  /** Appends to the list being written, unless that would eat into the disk's reserve. */
  private async write(handle: FileHandle, batch: string): Promise<void> {
    const bytes = Buffer.byteLength(batch);
    if (!(await this.options.space.claim(bytes))) {
      throw diskFullError('the data disk is below its reserve (LARDER_DISK_RESERVE); the project list was not kept');
    }
    await handle.write(batch);
  }

  async *entries(): AsyncIterable<ProjectListBatch> {
    if (!this.record() || !(await this.haveFile())) {
      yield Array.from(this.options.cachedNames(), (name) => ({ name }));
      return;
    }
    let rest = '';
    for await (const chunk of createReadStream(this.path, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
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
