/**
 * A client of a node that is not downloading the file itself, while another node does: it announces that
 * it follows (again every few seconds), and its bytes are read from the parts the downloading node then
 * writes (part-publisher.ts), from the first byte, as they appear. When nothing new has come, the file's
 * lock is asked for: granted, the downloading node has gone — the rest comes from the blob when it has
 * landed, else this node takes the download over (resuming from the parts) and the client goes on from
 * the byte it had reached. A download under way on this node meanwhile is joined instead. When the holder
 * sends nothing new for `waitMs`, this node downloads the file itself.
 *
 * Parts are not verified, so every byte sent is hashed and the last is held back until the whole is the
 * sha256 the file is named by: a client never receives a complete file that is not the verified one.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../store/blob-store.js';
import type { DownloadParts } from '../store/download-parts.js';
import { VerificationError } from './download-verifier.js';

export type Release = () => Promise<void>;

export interface FollowedFile {
  sha256: string;
  parts: DownloadParts;
  blobs: BlobStore;
  /** The file's cross-node lock: a release function, or null while another holds it. */
  lock(): Promise<Release | null>;
  /** A download of the file under way on this node that takes another reader, from its first byte; null when there is none. */
  joinLocal(): Promise<Readable | null>;
  /** Starts this node's download of the file (holding the lock when `release` is given), from its first byte. */
  takeOver(release: Release | null): Promise<Readable>;
}

export interface FollowOptions {
  /** How often the parts are listed (and the lock asked for) while nothing new has come. */
  pollMs: number;
  /** How long a holder may send nothing new before this node downloads the file itself. */
  waitMs: number;
  /** Monotonic ms. */
  now: () => number;
  /** Aborted once the client has gone: nothing is taken over for it after that. */
  signal?: AbortSignal;
}

/** How often a follower tells the holder again that it follows. */
const ANNOUNCE_EVERY_MS = 5000;

/** The bytes of `stream` from byte `from` on. */
async function* from(stream: Readable, bytes: number): AsyncGenerator<Uint8Array> {
  let left = bytes;
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    if (left >= chunk.byteLength) left -= chunk.byteLength;
    else {
      yield left ? chunk.subarray(left) : chunk;
      left = 0;
    }
  }
  if (left > 0) throw new Error('the download ended before the byte the client had reached');
}

/** The blob's bytes from `position` on. */
async function* blobFrom(blobs: BlobStore, sha256: string, position: number): AsyncGenerator<Uint8Array> {
  const size = await blobs.size(sha256);
  if (size === null) throw new Error(`the blob ${sha256} was gone as soon as it landed`);
  if (position >= size) return;
  yield* (await blobs.read(sha256, { start: position, end: size - 1 })) as AsyncIterable<Uint8Array>;
}

/** The file's bytes as they come, from the first: parts, then the blob or this node's own download. */
async function* following(file: FollowedFile, options: FollowOptions): AsyncGenerator<Uint8Array> {
  let position = 0;
  /** The offset of the part read last: the listing starts there. */
  let listFrom = 0;
  let quietSince = options.now();
  let announcedAt = Number.NEGATIVE_INFINITY;
  for (;;) {
    // Said again now and then: a holder that took over after parts were removed has not heard it.
    if (options.now() - announcedAt >= ANNOUNCE_EVERY_MS) {
      announcedAt = options.now();
      await file.parts.announce(file.sha256).catch(() => {});
    }
    let moved = false;
    for (const part of await file.parts.list(file.sha256, listFrom).catch(() => [])) {
      if (part.offset + part.size <= position) continue;
      if (part.offset > position) break;
      const bytes = await file.parts.read(file.sha256, part.offset, { start: position - part.offset, end: part.size - 1 }).catch(() => null);
      if (!bytes) break;
      listFrom = part.offset;
      position += bytes.byteLength;
      moved = true;
      yield bytes;
    }
    if (moved) {
      quietSince = options.now();
      continue;
    }
    if (options.signal?.aborted) throw new Error('the client has gone');
    const local = await file.joinLocal();
    if (local) return yield* from(local, position);
    const release = await file.lock();
    if (release) {
      if (await file.blobs.has(file.sha256).catch(() => false)) {
        await release();
        return yield* blobFrom(file.blobs, file.sha256, position);
      }
      return yield* from(await file.takeOver(release), position);
    }
    if (options.now() - quietSince >= options.waitMs) return yield* from(await file.takeOver(null), position);
    await sleep(options.pollMs, undefined, { signal: options.signal }).catch(() => {});
  }
}

/** `chunks`, whose last byte is held back until all of them are the bytes of `sha256`. */
async function* checked(sha256: string, chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  let held: Uint8Array | null = null;
  for await (const chunk of chunks) {
    if (chunk.byteLength === 0) continue;
    hash.update(chunk);
    if (held) yield held;
    if (chunk.byteLength > 1) yield chunk.subarray(0, -1);
    held = chunk.subarray(-1);
  }
  const digest = hash.digest('hex');
  if (digest !== sha256) throw new VerificationError(`the bytes followed from another node's download have sha256 ${digest}, not ${sha256}`);
  if (held) yield held;
}

/** The file's bytes for one client of this node, from the first, each checked as this module says. */
export function followParts(file: FollowedFile, options: FollowOptions): AsyncGenerator<Uint8Array> {
  return checked(file.sha256, following(file, options));
}
