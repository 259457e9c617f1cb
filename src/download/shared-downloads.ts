/**
 * The downloads under way on this node, one per file: a request joins the one for its file while it takes
 * readers, else starts one — unless another node of the same blob store holds the file's lock: then its
 * blob is awaited (up to a bound) and read from the store.
 */
import type { Readable } from 'node:stream';
import type { CrossNodeDownloads, Release } from './cross-node-downloads.js';
import type { FileDownload } from './file-download.js';

export interface Followed {
  stream: Readable;
  size: number | null;
}

export interface DownloadPlan {
  /** Names the file on this node (project, filename, variant). */
  key: string;
  /** The sha256 the upstream lists, which names the blob (and the cross-node lock) before the download. */
  sha256: string | null;
  /** Asks the upstream and starts the download with its first reader. */
  start(): Promise<FileDownload>;
  /** The blob another node has just stored, as a body; null when it is not there after all. */
  stored(): Promise<Followed | null>;
}

export class SharedDownloads {
  private readonly downloads = new Map<string, Promise<FileDownload>>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly crossNode?: CrossNodeDownloads) {}

  async follow(plan: DownloadPlan): Promise<Followed> {
    const local = await this.join(plan.key);
    if (local) return local;
    let release: Release | null = null;
    if (plan.sha256 && this.crossNode) {
      release = await this.crossNode.lock(plan.sha256);
      // Refused while no request on this node has started it: another node is downloading it.
      if (!release && !this.downloads.has(plan.key) && (await this.crossNode.landed(plan.sha256))) {
        const stored = await plan.stored();
        if (stored) return stored;
      }
      const joined = await this.join(plan.key);
      if (joined) {
        await release?.();
        return joined;
      }
    }
    return this.begin(plan, release);
  }

  /** Resolves when every download under way has ended (used by a graceful stop). */
  async drain(): Promise<void> {
    while (this.running.size) await Promise.all(this.running);
  }

  /** Joins the download under way on this node for this file, if one can take another reader. */
  private async join(key: string): Promise<Followed | null> {
    for (let current = this.downloads.get(key); current; ) {
      // A start that failed fails everyone who waited for it, with the same answer.
      const download = await current;
      if (download.joinable) return { stream: await download.follow(), size: download.knownSize };
      const now = this.downloads.get(key);
      current = now === current ? undefined : now;
    }
    return null;
  }

  private async begin(plan: DownloadPlan, release: Release | null): Promise<Followed> {
    const starting = plan.start();
    this.downloads.set(plan.key, starting);
    const forget = () => {
      if (this.downloads.get(plan.key) === starting) this.downloads.delete(plan.key);
    };
    starting.then((download) => download.closed).then(forget, forget);
    const ended = starting
      .then((download) => download.finished)
      .then(
        () => undefined,
        () => undefined,
      );
    this.running.add(ended);
    void ended.then(() => {
      this.running.delete(ended);
      return release?.().catch(() => {});
    });
    const download = await starting;
    return { stream: await download.first, size: download.knownSize };
  }
}
