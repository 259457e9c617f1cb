/** Hashing on the worker thread gives node:crypto's digests, whatever the chunking, and verification still fails a wrong file. */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { DownloadVerifier, VerificationError } from '../../src/download/download-verifier.js';
import { HashWorker } from '../../src/download/hash-worker.js';

const MiB = 1024 * 1024;

/** `bytes` cut into chunks of uneven sizes that straddle the worker's 1 MiB batches. */
function chunked(bytes: Buffer): Buffer[] {
  const sizes = [1, 65_536, MiB - 3, 7, 3 * MiB + 5, 100_000];
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const end = Math.min(bytes.length, at + sizes[i % sizes.length]!);
    chunks.push(bytes.subarray(at, end));
    at = end;
  }
  return chunks;
}

describe('the hash worker', () => {
  const worker = new HashWorker();
  after(() => worker.close());
  const bytes = randomBytes(9 * MiB + 123);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const sha512 = createHash('sha512').update(bytes).digest('hex');

  test('digests of a body hashed on the worker are node:crypto’s, for two concurrent jobs', async () => {
    const a = worker.open(['sha256', 'sha512']);
    const b = worker.open(['md5']);
    for (const chunk of chunked(bytes)) {
      a.update(chunk);
      b.update(chunk);
      await a.drained();
    }
    assert.deepEqual(await a.digests(), [sha256, sha512]);
    assert.deepEqual(await b.digests(), [createHash('md5').update(bytes).digest('hex')]);
  });

  test('a verifier on the worker accepts the right file and refuses a changed one', async () => {
    const good = new DownloadVerifier({ hash: { name: 'sha512', hex: sha512 }, size: bytes.length }, 100 * MiB, worker);
    for (const chunk of chunked(bytes)) good.add(chunk);
    assert.equal(await good.finish(), sha256);

    const changed = Buffer.from(bytes);
    changed[5 * MiB] = changed[5 * MiB]! ^ 1;
    const bad = new DownloadVerifier({ hash: { name: 'sha256', hex: sha256 }, size: bytes.length }, 100 * MiB, worker);
    for (const chunk of chunked(changed)) bad.add(chunk);
    await assert.rejects(bad.finish(), VerificationError);
  });

  test('a worker closed between downloads starts again for the next', async () => {
    await worker.close();
    const job = worker.open(['sha256']);
    job.update(bytes);
    assert.deepEqual(await job.digests(), [sha256]);
  });
});
