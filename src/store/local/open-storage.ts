/**
 * The storage of one node: LMDB under data/meta for the records, the filesystem under data/blobs for the
 * bytes. (Other backends get a folder of their own beside lmdb/ and fs/, and an opener like this one.)
 */
import { FileBlobStore } from '../fs/file-blob-store.js';
import { openEnvironment } from '../lmdb/environment.js';
import { LmdbAuditStore } from '../lmdb/lmdb-audit-store.js';
import { LmdbCachedFileIndex } from '../lmdb/lmdb-cached-file-index.js';
import { LmdbDocumentStore } from '../lmdb/lmdb-document-store.js';
import { LmdbIndexStore } from '../lmdb/lmdb-index-store.js';
import { LmdbPolicyStore } from '../lmdb/lmdb-policy-store.js';
import { LmdbAdvisoryStore } from '../lmdb/lmdb-advisory-store.js';
import { LmdbPublisherStore } from '../lmdb/lmdb-publisher-store.js';
import { LmdbMirrorSetStore } from '../lmdb/lmdb-mirror-set-store.js';
import type { Storage } from '../storage.js';
import { LocalDownloadLocks } from './local-download-locks.js';

export function openStorage(dataDir: string): Storage {
  const root = openEnvironment(dataDir);
  const blobs = new FileBlobStore(dataDir);
  return {
    index: new LmdbIndexStore(root),
    documents: new LmdbDocumentStore(root),
    cachedFiles: new LmdbCachedFileIndex(root),
    blobs,
    policy: new LmdbPolicyStore(root),
    advisories: new LmdbAdvisoryStore(root),
    upstreamDocuments: (name) => new LmdbDocumentStore(root, `upstream-docs@${name}`),
    mirrorSets: new LmdbMirrorSetStore(root),
    downloadLocks: new LocalDownloadLocks(),
    publishers: new LmdbPublisherStore(root),
    audit: new LmdbAuditStore(root),
    backends: [
      { role: 'database', kind: 'lmdb', neededFor: 'everything', ping: async () => void root.get('') },
      { role: 'blobs', kind: 'filesystem', neededFor: 'everything', ping: () => blobs.ping() },
    ],
    close: () => root.close(),
  };
}
