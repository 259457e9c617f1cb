/** The storage contract for the embedded backend: LMDB under data/meta, blobs on the filesystem under data/blobs. */
import { readdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { FileBlobStore } from '../../src/store/fs/file-blob-store.js';
import { openStorage } from '../../src/store/local/open-storage.js';
import { blobStoreContract } from '../helpers/blob-store-contract.js';
import { storageContract } from '../helpers/storage-contract.js';

storageContract('LMDB + filesystem', openStorage);

blobStoreContract('filesystem', async (dataDir) => {
  const blobs = new FileBlobStore(dataDir);
  return {
    blobs,
    async stored() {
      const files = await readdir(blobs.blobsDir, { recursive: true, withFileTypes: true }).catch(() => []);
      const kept = new Map<string, Buffer>();
      for (const file of files) if (file.isFile()) kept.set(file.name, await readFile(join(file.parentPath, file.name)));
      return kept;
    },
    async age(sha256) {
      const hourAgo = new Date(Date.now() - 3_600_000);
      await utimes(blobs.pathFor(sha256), hourAgo, hourAgo);
    },
    async close() {},
  };
});
