/** Shared pieces of the storage contract tests: a factory type, a fresh storage per describe block, record builders. */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { PublishInput } from '../../src/store/index-store.js';
import type { FileRecord } from '../../src/store/records.js';
import type { Storage } from '../../src/store/storage.js';

export type StorageFactory = (dataDir: string) => Storage | Promise<Storage>;

export const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export function fileRecord(project: string, version: string, filename: string, sha256 = 'a'.repeat(64)): FileRecord {
  return {
    project,
    version,
    filename,
    packagetype: 'bdist_wheel',
    pyversion: 'py3',
    size: 10,
    sha256,
    md5: 'b'.repeat(32),
    blake2b_256: sha256,
    uploadTime: new Date().toISOString(),
    requiresPython: null,
    comment: null,
    metadataSha256: null,
    signatureSha256: null,
    uploader: 'alice',
  };
}

export function publishInput(filename: string, version: string, sha256 = 'a'.repeat(64), project = 'demo'): PublishInput {
  return {
    project: { name: project, displayName: project === 'demo' ? 'Demo' : project },
    release: { version, metadata: { name: project, version } },
    user: 'alice',
    file: fileRecord(project, version, filename, sha256),
  };
}

/** What opens on a data directory and keeps blobs: a whole storage, or one blob store. */
interface OpenedOnData {
  blobs: { init(): Promise<void> };
  close(): Promise<void>;
}

/** A fresh one per describe block, opened on a new temporary data directory, closed and removed after it. */
export function withOpened<T extends OpenedOnData>(prefix: string, open: (dataDir: string) => T | Promise<T>): () => T {
  let dir: string;
  let opened: T;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    opened = await open(join(dir, 'data'));
    await opened.blobs.init();
  });
  after(async () => {
    await opened?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => opened;
}

/** A fresh storage per describe block, closed and removed after it. */
export const withStorage = (open: StorageFactory): (() => Storage) => withOpened('larder-store-', open);
