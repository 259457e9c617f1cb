/**
 * A Writable that writes to a new file and computes md5, sha256 and blake2b-256 of the bytes as they
 * pass, holding at most one chunk in memory. It refuses to grow past `maxBytes`.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { IHasher } from 'hash-wasm';
import { lazyRequire } from '../base/lazy-require.js';

export interface FileDigests {
  size: number;
  md5: string;
  sha256: string;
  blake2b_256: string;
}

export interface HashingWriterOptions {
  maxBytes: number;
  /** The error to fail with when the file would exceed `maxBytes`. */
  tooLarge: () => Error;
}

export class HashingFileWriter extends Writable {
  #handle: FileHandle | null = null;
  #md5: Hash = createHash('md5');
  #sha256: Hash = createHash('sha256');
  #blake2: IHasher | null = null;
  #size = 0;
  #digests: FileDigests | null = null;

  constructor(
    readonly path: string,
    private readonly options: HashingWriterOptions,
  ) {
    super({ decodeStrings: true });
  }

  /** The digests, available once the stream has emitted `finish`. */
  get digests(): FileDigests {
    if (!this.#digests) throw new Error(`HashingFileWriter for ${this.path} has not finished`);
    return this.#digests;
  }

  override _construct(callback: (error?: Error | null) => void): void {
    (async () => {
      // Loaded by the first upload: a server that only proxies never needs it.
      const blake2 = await (lazyRequire('hash-wasm') as typeof import('hash-wasm')).createBLAKE2b(256);
      blake2.init();
      this.#blake2 = blake2;
      // `wx`: never write through an existing file (or a planted symlink) in the temp directory.
      this.#handle = await open(this.path, 'wx', 0o600);
    })().then(() => callback(), callback);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.#size + chunk.length > this.options.maxBytes) {
      callback(this.options.tooLarge());
      return;
    }
    this.#size += chunk.length;
    this.#md5.update(chunk);
    this.#sha256.update(chunk);
    this.#blake2!.update(chunk);
    writeAll(this.#handle!, chunk).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    const handle = this.#handle!;
    this.#handle = null;
    handle.close().then(() => {
      this.#digests = {
        size: this.#size,
        md5: this.#md5.digest('hex'),
        sha256: this.#sha256.digest('hex'),
        blake2b_256: this.#blake2!.digest('hex'),
      };
      callback();
    }, callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const handle = this.#handle;
    this.#handle = null;
    if (!handle) {
      callback(error);
      return;
    }
    handle.close().then(
      () => callback(error),
      () => callback(error),
    );
  }
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

/** Resolves once `stream` is closed (destroyed or finished), whether or not it failed. */
export function whenClosed(stream: Writable): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((resolve) => stream.once('close', () => resolve()));
}
