/** Everything larder keeps, behind the storage interfaces: one data directory, or that and shared backends. */
import type { AuditStore } from './audit-store.js';
import type { BackendCheck } from './backend-check.js';
import type { BlobStore } from './blob-store.js';
import type { DownloadLocks } from './download-locks.js';
import type { CachedFileIndex } from './cached-file-index.js';
import type { IndexStore } from './index-store.js';
import type { PolicyStore } from './policy-store.js';
import type { AdvisoryStore } from './advisory-store.js';
import type { PublisherStore } from './publisher-store.js';
import type { MirrorSetStore } from './mirror-set-store.js';
import type { UpstreamDocumentStore } from './upstream-document-store.js';

export interface Storage {
  /** The private index. */
  index: IndexStore;
  /** Cached upstream pages and JSON documents. */
  documents: UpstreamDocumentStore;
  /** Records of the verified upstream files in `blobs`. */
  cachedFiles: CachedFileIndex;
  blobs: BlobStore;
  /** Cooldown exemptions and name collisions. */
  policy: PolicyStore;
  /** The imported security advisories. */
  advisories: AdvisoryStore;
  /** The cached pages and JSON documents of the upstream named `name` when it is not the first one. */
  upstreamDocuments(name: string): UpstreamDocumentStore;
  /** Mirror sets (air-gap fills) and the files they pin in the cache. */
  mirrorSets: MirrorSetStore;
  /** Who downloads an upstream file when several nodes share the blob store. */
  downloadLocks: DownloadLocks;
  /** Trusted publishers, exchanged OIDC tokens and minted upload tokens. */
  publishers: PublisherStore;
  /** The download audit: who fetched which file. */
  audit: AuditStore;
  /** The backends /health reports on. */
  backends: BackendCheck[];
  close(): Promise<void>;
}
