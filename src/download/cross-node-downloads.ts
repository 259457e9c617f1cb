/**
 * One upstream download of a file across the nodes that share a blob store and a database, however slow
 * the file and whichever node dies. The node holding the file's lock (download-locks.ts) downloads it;
 * once a client of another node announces that it follows, the holder writes the file as parts
 * (part-publisher.ts), which that client reads a second or so behind (part-follower.ts). The lock of a
 * node that dies is freed at once; the next node to take it resumes from the parts (handover.ts). Once the
 * blob has landed its parts are removed; the parts of a download that did not finish stay for whoever
 * takes it over (purgeTmp removes old ones).
 */
import type { Readable } from 'node:stream';
import type { BlobStore } from '../store/blob-store.js';
import type { DownloadLocks } from '../store/download-locks.js';
import type { DownloadParts } from '../store/download-parts.js';
import type { FileDownload } from './file-download.js';
import { Handover } from './handover.js';
import type { PublishOptions } from './part-publisher.js';
import { type FollowOptions, followParts, type Release } from './part-follower.js';
import { startedStream } from './started-stream.js';

export type { Release } from './part-follower.js';

export type CrossNodeOptions = PublishOptions & Omit<FollowOptions, 'now'> & { now?: () => number };

/** Parts of at most 4 MiB, written at least every second (the first at once); listed four times a second while nothing new comes. */
export const sharedDownloadOptions = (waitMs: number): CrossNodeOptions => ({ partBytes: 4 << 20, flushMs: 1000, pollMs: 250, waitMs });

/** How a holder's download ended: the blob is in, its bytes were wrong, or neither (the parts stay). */
export type DownloadOutcome = 'kept' | 'wrong' | 'unfinished';

export interface Follower {
  joinLocal(): Promise<Readable | null>;
  takeOver(release: Release | null): Promise<Readable>;
}

export class CrossNodeDownloads {
  private readonly follow: FollowOptions;

  constructor(
    private readonly locks: DownloadLocks,
    private readonly blobs: BlobStore,
    private readonly parts: DownloadParts,
    private readonly options: CrossNodeOptions,
    /** Hears what fails on the side (a part not written, parts not removed): the download goes on. */
    private readonly onError: (what: string, err: Error) => void = () => {},
  ) {
    this.follow = { pollMs: options.pollMs, waitMs: options.waitMs, now: options.now ?? (() => performance.now()) };
  }

  /** The lock of blob `sha256`: a release function, or null when another node (or request) holds it. */
  lock(sha256: string): Promise<Release | null> {
    return this.locks.tryLock(`blob:${sha256}`);
  }

  /** Where the holder of `sha256`'s lock starts: after the parts already written, publishing the rest. */
  async handover(sha256: string): Promise<Handover> {
    const found = await this.parts.list(sha256).catch((err: Error) => {
      this.onError(`the parts of ${sha256}`, err);
      return [];
    });
    return new Handover(this.parts, sha256, found, this.options, (err) => this.onError(`a part of ${sha256}`, err));
  }

  /**
   * While the holder's download runs, looks every `flushMs` for a follower's announcement, and then
   * publishes the file as parts (a holder nobody follows writes none).
   */
  publishWhenFollowed(sha256: string, handover: Handover, download: FileDownload): void {
    let running = true;
    const stop = () => {
      running = false;
    };
    download.finished.then(stop, stop);
    const look = async () => {
      if (!running) return;
      if (await this.parts.announced(sha256).catch(() => false)) {
        if (running) handover.publish(() => download.follow());
        return;
      }
      setTimeout(() => void look(), this.options.flushMs).unref();
    };
    void look();
  }

  /**
   * After the holder's download ended: releases its lock once its last parts are written. Parts of wrong
   * bytes go before the next holder could resume from them; once the blob is in, they go too.
   */
  async ended(sha256: string, handover: Handover, outcome: DownloadOutcome, release: Release): Promise<void> {
    await handover.written();
    if (outcome === 'wrong') await this.removeParts(sha256);
    await release().catch(() => {});
    if (outcome === 'kept') await this.removeParts(sha256);
  }

  private async removeParts(sha256: string): Promise<void> {
    await this.parts.remove(sha256).catch((err: Error) => this.onError(`removing the parts of ${sha256}`, err));
  }

  /** A client's stream of the file another node is downloading, once its first bytes have come. */
  async followOther(sha256: string, follower: Follower): Promise<Readable> {
    const file = { sha256, parts: this.parts, blobs: this.blobs, lock: () => this.lock(sha256), ...follower };
    const gone = new AbortController();
    const stream = await startedStream(followParts(file, { ...this.follow, signal: gone.signal }), 1 << 20);
    stream.once('close', () => gone.abort());
    return stream;
  }
}
