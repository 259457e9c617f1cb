/**
 * The cached upstream source as the mirror commands use it: the server's own chain for the first upstream
 * (sources/upstream-chain.ts), built in-process, so pages and files go through the same cache, every file is
 * verified against the index's hash and stored exactly as when pip asks larder, under the same size bound.
 */
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import type { Config } from '../config/schema.js';
import { CacheBudget } from '../cache/cache-budget.js';
import type { CachedSource } from '../sources/cached-source.js';
import { buildUpstreamChain, commandChainDeps } from '../sources/upstream-chain.js';
import type { Storage } from '../store/storage.js';
import { UncachedMetadata } from './uncached-metadata.js';

export interface MirrorSource {
  cache: CachedSource;
  /** Core metadata read from the upstream without storing anything (dry runs). */
  uncached: UncachedMetadata;
  close(): Promise<void>;
}

export class NoUpstreamError extends Error {}

export async function openMirrorSource(config: Config, storage: Storage, logger: Logger, clock: Clock): Promise<MirrorSource> {
  const [spec] = config.upstreams;
  if (!spec) throw new NoUpstreamError('no upstream is configured (LARDER_UPSTREAM=none): a mirror set has nothing to fill from');
  await storage.blobs.init();
  const chain = buildUpstreamChain(spec, config, {
    ...commandChainDeps(config, storage, logger, clock),
    budget: config.cacheMaxSize === null ? undefined : new CacheBudget(storage, config.cacheMaxSize, logger),
  });
  return {
    cache: chain.cache,
    uncached: new UncachedMetadata(chain.client, {
      deadline: spec.deadline,
      maxFileSize: config.maxFileSize,
      tmpPath: () => storage.blobs.tmpPath('mirror-wheel'),
    }),
    async close() {
      await Promise.all([chain.cache.files.drain(), chain.cache.settled()]);
      await chain.client.close();
    },
  };
}
