/**
 * Checks an upstream file as it streams in: never more than the advertised size nor LARDER_MAX_FILE_SIZE,
 * and at the end exactly the advertised size and the strongest advertised hash.
 */
import { createHash, type Hash } from 'node:crypto';
import { formatBytes } from '../base/units.js';
import { UpstreamError } from '../upstream/upstream-error.js';
import type { Hashes } from '../model/documents.js';
import type { HashWorker, HashJob } from './hash-worker.js';

/** Hash names node:crypto can check, strongest first. */
const VERIFIABLE = ['sha512', 'sha384', 'sha256', 'sha224', 'sha1', 'md5'] as const;

export function strongestHash(hashes: Hashes): { name: string; hex: string } | null {
  for (const name of VERIFIABLE) {
    const hex = hashes[name];
    if (hex) return { name, hex: hex.toLowerCase() };
  }
  return null;
}

export class VerificationError extends Error {
  override name = 'VerificationError';
}

export interface Expected {
  hash: { name: string; hex: string } | null;
  size: number | null;
}

export class DownloadVerifier {
  size = 0;
  /** Hashing here, or (`job`) on the hash worker. */
  private readonly hashes: Hash[] = [];
  private readonly job: HashJob | null = null;

  /** Hashes on `worker` when one is given, else on the calling thread. */
  constructor(
    private readonly expected: Expected,
    private readonly maxBytes: number,
    worker?: HashWorker,
  ) {
    const names = expected.hash && expected.hash.name !== 'sha256' ? ['sha256', expected.hash.name] : ['sha256'];
    if (worker) this.job = worker.open(names);
    else for (const name of names) this.hashes.push(createHash(name));
  }

  /** Refuses a size announced before the body (the page's, or Content-Length) that cannot be right. */
  announced(size: number): void {
    if (size > this.maxBytes) {
      throw new UpstreamError(`sent a file larger than LARDER_MAX_FILE_SIZE (${formatBytes(this.maxBytes)})`, 'invalid');
    }
    if (this.expected.size !== null && size > this.expected.size) {
      throw new VerificationError(`announced ${size} bytes, the index advertised ${this.expected.size}`);
    }
  }

  add(chunk: Uint8Array): void {
    if (this.size + chunk.byteLength > this.maxBytes) this.announced(this.size + chunk.byteLength);
    if (this.expected.size !== null && this.size + chunk.byteLength > this.expected.size) {
      throw new VerificationError(`received more than the advertised ${this.expected.size} bytes`);
    }
    this.size += chunk.byteLength;
    if (this.job) this.job.update(chunk);
    else for (const hash of this.hashes) hash.update(chunk);
  }

  /** Resolves once the hash worker is not far behind the bytes added (at once when hashing here). */
  drained(): Promise<void> {
    return this.job ? this.job.drained() : Promise.resolve();
  }

  /** The sha256 of the whole file, once its size and hash are right. */
  async finish(): Promise<string> {
    const digests = this.job ? await this.job.digests() : this.hashes.map((hash) => hash.digest('hex'));
    const digest = digests[0]!;
    const { size, hash } = this.expected;
    if (size !== null && this.size !== size) throw new VerificationError(`received ${this.size} bytes, the index advertised ${size}`);
    if (hash) {
      const actual = digests[1] ?? digest;
      if (actual !== hash.hex) throw new VerificationError(`${hash.name} is ${actual}, the index advertised ${hash.hex}`);
    }
    return digest;
  }

  /** Lets go of the hash worker's job when the body will not be finished. */
  discard(): void {
    this.job?.discard();
  }
}
