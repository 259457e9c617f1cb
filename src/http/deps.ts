import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.js';
import type { DownloadAudit } from '../audit/download-audit.js';
import type { Clock } from '../base/clock.js';
import type { Config } from '../config/schema.js';
import type { PrivateSource } from '../sources/private-source.js';
import type { IndexStats } from '../store/stats.js';
import type { PackageSource } from '../sources/package-source.js';
import type { BlobStore } from '../store/blob-store.js';
import type { DiskSpace } from '../store/disk-space.js';
import type { IndexStore } from '../store/index-store.js';
import type { Publisher } from '../upload/publish.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ClientAddress } from './client-address.js';
import type { RenderedCache } from './rendered-cache.js';
import type { RootRenderCache } from './root-render-cache.js';

/** What the HTTP layer is handed by the composition root. Routes talk to `source`, never to the stores for reads. */
export interface HttpDeps {
  config: Config;
  clock: Clock;
  source: PackageSource;
  privateSource: PrivateSource;
  meta: IndexStore;
  blobs: BlobStore;
  space: DiskSpace;
  authenticator: Authenticator;
  publisher: Publisher;
  logger: Logger;
  metrics: Metrics;
  rendered: RenderedCache;
  rootPages: RootRenderCache;
  /** Private and cached upstream files and bytes, per project (/stats/). */
  stats: () => Promise<IndexStats>;
  /** Where file downloads are recorded; null with LARDER_AUDIT=false. */
  audit: DownloadAudit | null;
  /** The client's address as the audit records it (LARDER_TRUSTED_PROXIES). */
  clientAddress: ClientAddress;
}
