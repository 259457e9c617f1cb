/**
 * The downloads under way on this node, one per file: a request joins the one for its file while it takes
 * readers, else starts one — unless another node of the same blob store holds the file's lock: then the
 * client follows that node's download (cross-node-downloads.ts), and this node takes it over if that node
 * goes.
 */
import type { Readable } from 'node:stream';
import type { CrossNodeDownloads, DownloadOutcome, Release } from './cross-node-downloads.js';
import { VerificationError } from './download-verifier.js';
import type { FileDownload } from './file-download.js';
import type { Handover } from './handover.js';

export interface Followed {
  stream: Readable;
  size: number | null;
}

export interface DownloadPlan {
  /** Names the file on this node (project, filename, variant). */
  key: string;
  /** The sha256 the upstream lists, which names the blob (and the cross-node lock) before the download. */
  sha256: string | null;
  /** The size the upstream lists, when it does. */
  size: number | null;
  /** Asks the upstream and starts the download with its first reader; with a handover, from where its parts end. */
  start(handover: Handover | null): Promise<FileDownload>;
}

export class SharedDownloads {
  private readonly downloads = new Map<string, Promise<FileDownload>>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly crossNode?: CrossNodeDownloads) {}

  async follow(plan: DownloadPlan): Promise<Followed> {
    const local = await this.join(plan.key);
    if (local) return local;
    const { sha256 } = plan;
    if (!sha256 || !this.crossNode) return this.begin(plan, null);
    const release = await this.crossNode.lock(sha256);
    const joined = await this.join(plan.key);
    if (joined) {
      await release?.();
      return joined;
    }
    // Granted; or refused while a download on this node takes no more readers (a file not kept): download again.
    if (release || this.downloads.has(plan.key)) return this.begin(plan, release);
    // Refused while no request on this node has started it: another node is downloading it.
    const stream = await this.crossNode.followOther(sha256, {
      joinLocal: async () => (await this.join(plan.key))?.stream ?? null,
      takeOver: async (lock) => {
        const started = await this.join(plan.key);
        if (started) await lock?.();
        return (started ?? (await this.begin(plan, lock))).stream;
      },
    });
    return { stream, size: plan.size };
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

  /** Starts this node's download; holding the cross-node lock, it resumes from the parts and publishes its own. */
  private async begin(plan: DownloadPlan, release: Release | null): Promise<Followed> {
    const crossNode = release && plan.sha256 ? this.crossNode : undefined;
    const handover = crossNode ? crossNode.handover(plan.sha256!) : Promise.resolve(null);
    const starting = handover.then((h) => plan.start(h));
    this.downloads.set(plan.key, starting);
    const forget = () => {
      if (this.downloads.get(plan.key) === starting) this.downloads.delete(plan.key);
    };
    starting.then((download) => download.closed).then(forget, forget);
    const outcome = starting
      .then((download) => download.finished)
      .then(
        (result): DownloadOutcome => (result.kept ? 'kept' : 'unfinished'),
        (err: unknown): DownloadOutcome => (err instanceof VerificationError ? 'wrong' : 'unfinished'),
      );
    const ended = outcome.then(() => undefined);
    this.running.add(ended);
    void outcome.then(async (how) => {
      this.running.delete(ended);
      const begun = await handover.catch(() => null);
      if (crossNode && begun && release) await crossNode.ended(plan.sha256!, begun, how, release);
      else await release?.().catch(() => {});
    });
    const download = await starting;
    const started = await handover;
    if (crossNode && started) crossNode.publishWhenFollowed(plan.sha256!, started, download);
    return { stream: await download.first, size: download.knownSize };
  }
}
