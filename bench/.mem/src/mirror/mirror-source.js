/**
 * The cached upstream source as the mirror commands use it, built in-process from the configuration the
 * way the server builds it (app.ts): pages and files go through the same cache, so every file is verified
 * against the index's hash and stored exactly as when pip asks larder, under the same size bound.
 */
import { join } from 'node:path';
import { CacheBudget } from '../index/sources/cache-budget.js';
import { CachedSource } from '../index/sources/cached-source.js';
import { UpstreamSource } from '../index/sources/upstream-source.js';
import { DiskSpace } from '../store/disk-space.js';
import { UpstreamClient } from '../upstream/client.js';
import { OriginPolicy } from '../upstream/origin-policy.js';
export class NoUpstreamError extends Error {
}
export async function openMirrorSource(config, storage, logger, clock) {
    if (!config.upstream)
        throw new NoUpstreamError('no upstream is configured (LARDER_UPSTREAM=none): a mirror set has nothing to fill from');
    await storage.blobs.init();
    const client = new UpstreamClient(config, new OriginPolicy(config.upstream, config.upstreamJsonApi, config.fileHosts), {
        request: () => { },
        failure: () => { },
    });
    const upstream = new UpstreamSource(client, {
        indexUrl: UpstreamClient.stripCredentials(config.upstream),
        jsonApiUrl: config.upstreamJsonApi,
        deadline: config.upstreamDeadline,
        rootDeadline: config.upstreamDeadline,
    });
    const budget = config.cacheMaxSize === null ? undefined : new CacheBudget(storage, config.cacheMaxSize, logger);
    const cache = new CachedSource(upstream, storage, storage.blobs, {
        pageTtl: config.pageTtl,
        rootTtl: config.rootTtl,
        notFoundTtl: config.notFoundTtl,
        staleWait: Math.min(config.staleWait, config.upstreamDeadline),
        offline: config.offline,
        maxFileSize: config.maxFileSize,
        cacheDir: join(config.data, 'cache'),
        clock,
        space: new DiskSpace(config.data, config.diskReserve, clock),
        budget,
    }, logger);
    return {
        cache,
        async close() {
            await cache.files.drain();
            await client.close();
        },
    };
}
