/** The composition root: builds stores, sources and the HTTP app from one Config. The only place that wires. */
import { privateFileTotals } from './index/stats.js';
import { access, constants, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import { Authenticator } from './auth/authenticator.js';
import { LoginLimiter } from './auth/login-limiter.js';
import { PasswordHasher } from './auth/password-hasher.js';
import { systemClock, type Clock } from './base/clock.js';
import type { Config } from './config/schema.js';
import type { HttpDeps } from './http/deps.js';
import { errorMiddleware } from './http/error-middleware.js';
import { readAuthMiddleware } from './http/read-auth.js';
import { RenderedCache } from './http/rendered-cache.js';
import { requestLog } from './http/request-log.js';
import { RootRenderCache } from './http/root-render-cache.js';
import { registerAdminRoutes } from './http/routes/admin.js';
import { registerFileRoutes } from './http/routes/files.js';
import { registerHealthRoutes } from './http/routes/health.js';
import { registerJsonApiRoutes } from './http/routes/json-api.js';
import { registerMetricsRoutes } from './http/routes/metrics.js';
import { registerSimpleRoutes } from './http/routes/simple.js';
import { registerStatsRoutes } from './http/routes/stats.js';
import { registerUploadRoutes } from './http/routes/upload.js';
import { ProjectAdmin } from './index/project-admin.js';
import { CacheBudget } from './index/sources/cache-budget.js';
import type { CachedFiles } from './index/sources/cached-files.js';
import { CachedSource } from './index/sources/cached-source.js';
import { cachedWheelMetadata, coreMetadataFile, firstFound } from './index/sources/core-metadata-file.js';
import { readWheelMetadata } from './upload/dist-metadata.js';
import { JsonApiFromPages } from './index/sources/json-api-from-pages.js';
import { OverlaySource } from './index/sources/overlay-source.js';
import { PrivateSource } from './index/sources/private-source.js';
import { ReleaseMetadataFiller } from './index/sources/release-metadata.js';
import { UpstreamSource } from './index/sources/upstream-source.js';
import type { IndexSource } from './index/source.js';
import { UpstreamNameCheck } from './index/upstream-names.js';
import { createLogger } from './logger.js';
import { loadSessionKey } from './web/session.js';
import { createWebUi } from './web/web-ui.js';
import { StorageReporter } from './metrics/storage-reporter.js';
import { Metrics } from './metrics/metrics.js';
import type { BlobStore } from './store/blob-store.js';
import { DiskSpace } from './store/disk-space.js';
import type { IndexStore } from './store/index-store.js';
import { openStorage } from './store/local/open-storage.js';
import type { Storage } from './store/storage.js';
import { Publisher } from './upload/publish.js';
import { UpstreamClient } from './upstream/client.js';
import { OriginPolicy } from './upstream/origin-policy.js';

export interface Larder {
  config: Config;
  logger: Logger;
  storage: Storage;
  /** The private index (`storage.index`). */
  meta: IndexStore;
  blobs: BlobStore;
  metrics: Metrics;
  koa: Koa;
  /** Starts listening; resolves with the URL the server is reachable at. */
  listen(): Promise<string>;
  /**
   * Stops accepting connections, lets in-flight requests and upstream downloads finish for up to
   * `graceMs` (default: the configured grace), then closes every connection and the store.
   */
  close(graceMs?: number): Promise<void>;
}

async function openDataDir(config: Config): Promise<Storage> {
  await mkdir(config.data, { recursive: true });
  try {
    await access(config.data, constants.W_OK);
  } catch {
    throw new Error(`data directory ${config.data} is not writable`);
  }
  const storage = openStorage(config.data);
  try {
    await storage.blobs.init();
    await storage.blobs.purgeTmp();
  } catch (err) {
    await storage.close();
    throw err;
  }
  return storage;
}

/** The project list is large: it gets at least this long, however short the page deadline is. */
const ROOT_DEADLINE_MIN = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function createLarder(config: Config, options: { logger?: Logger; clock?: Clock } = {}): Promise<Larder> {
  const logger = options.logger ?? createLogger(config);
  const clock = options.clock ?? systemClock;
  const stores = await openDataDir(config);
  const { index: meta, blobs } = stores;

  let cachedFiles: CachedFiles | null = null;
  /** The upstream as the overlay sees it: the cache, with JSON API documents completed. */
  let upstreamSource: IndexSource | null = null;
  let upstreamNames: UpstreamNameCheck | null = null;
  const metrics = new Metrics(() => ({ private: privateFileTotals(meta), cached: cachedFiles?.totals() ?? { bytes: 0, files: 0 } }), clock);

  const privateSource = new PrivateSource(meta, blobs);
  const space = new DiskSpace(config.data, config.diskReserve, clock);
  const storage = new StorageReporter(logger, metrics, clock);
  const origins = new OriginPolicy(config.upstream, config.upstreamJsonApi, config.fileHosts);
  const client = config.upstream
    ? new UpstreamClient(config, origins, {
        request: () => metrics.upstreamRequests.inc(),
        failure: (kind) => {
          metrics.upstreamErrors.inc({ kind });
          if (kind === 'timeout') metrics.upstreamTimeouts.inc();
        },
      })
    : null;
  if (client && config.upstream) {
    const budget = config.cacheMaxSize === null ? undefined : new CacheBudget(stores, config.cacheMaxSize, logger, (files) => metrics.evictions.inc(files));
    const upstream = new UpstreamSource(client, {
      indexUrl: UpstreamClient.stripCredentials(config.upstream),
      jsonApiUrl: config.upstreamJsonApi,
      deadline: config.upstreamDeadline,
      rootDeadline: Math.max(ROOT_DEADLINE_MIN, config.upstreamDeadline),
    });
    const cache = new CachedSource(
      upstream,
      stores,
      blobs,
      {
        pageTtl: config.pageTtl,
        rootTtl: config.rootTtl,
        notFoundTtl: config.notFoundTtl,
        staleWait: Math.min(config.staleWait, config.upstreamDeadline),
        offline: config.offline,
        maxFileSize: config.maxFileSize,
        cacheDir: join(config.data, 'cache'),
        clock,
        space,
        budget,
      },
      logger,
      {
        hashMismatch: () => metrics.hashMismatches.inc(),
        bytesFetched: (n) => metrics.upstreamFetchedBytes.inc(n),
        diskFull: (what, item, err) => storage.diskFull(what, item, err),
        storeFailed: (what, err) => storage.failed(what, err),
      },
    );
    cachedFiles = cache.files;
    const coreMetadata = firstFound([coreMetadataFile(cache, logger), cachedWheelMetadata(cache, readWheelMetadata, logger)]);
    upstreamSource = new ReleaseMetadataFiller(new JsonApiFromPages(cache, coreMetadata), [
      (name, release) => cache.getReleaseMetadata(name, release.version),
      coreMetadata,
    ]);
    upstreamNames = new UpstreamNameCheck(cache, config.offline);
  }
  const passwords = new PasswordHasher();
  const source = new OverlaySource(privateSource, upstreamSource, { mergeAllowList: new Set(config.mergeAllowList) });
  const deps: HttpDeps = {
    config,
    clock,
    source,
    privateSource,
    meta,
    blobs,
    space,
    authenticator: new Authenticator(meta, passwords, new LoginLimiter(config.loginFailureLimit, clock)),
    publisher: new Publisher(stores, upstreamNames, new Set(config.mergeAllowList), clock),
    logger,
    metrics,
    rendered: new RenderedCache(config.memoryCacheSize),
    rootPages: new RootRenderCache(join(config.data, 'cache'), space),
  };

  const koa = new Koa();
  const router = new Router({ strict: true });
  registerHealthRoutes(router);
  registerMetricsRoutes(router, metrics, config.metricsToken);
  registerSimpleRoutes(router, deps);
  registerJsonApiRoutes(router, deps);
  registerFileRoutes(router, deps);
  registerStatsRoutes(router, deps);
  registerUploadRoutes(router, deps);
  const admin = new ProjectAdmin(meta);
  registerAdminRoutes(router, deps, admin);
  const webUi = createWebUi({ http: deps, admin, documents: stores.documents, upstream: upstreamSource, sessionKey: await loadSessionKey(config.data) });

  koa.on('error', (err: NodeJS.ErrnoException) => {
    // A client that goes away mid-response is routine, not a server error.
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE') logger.debug({ err: err.message }, 'client went away');
    else logger.warn({ err }, 'response failed');
  });
  let inflight = 0;
  koa.use(async (ctx, next) => {
    inflight++;
    ctx.res.once('close', () => inflight--);
    await next();
  });
  koa.use(requestLog(logger, metrics));
  koa.use(errorMiddleware(logger, storage));
  // The web pages ask for a login themselves (a form, not a bare 401); other paths pass through.
  koa.use(webUi);
  if (config.readAuth) koa.use(readAuthMiddleware(deps.authenticator));
  koa.use(router.routes());
  koa.use(router.allowedMethods());

  let server: Server | null = null;
  let closing: Promise<void> | null = null;
  const shutdown = async (graceMs: number) => {
    if (server) {
      const s = server;
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      s.closeIdleConnections();
      const downloads = cachedFiles ? cachedFiles.drain() : Promise.resolve();
      let downloadsDone = false;
      void downloads.then(() => (downloadsDone = true));
      // The grace is real time, measured by a timer rather than the injected clock, which a test may hold still.
      let graceOver = false;
      const grace = setTimeout(() => (graceOver = true), graceMs);
      while ((inflight > 0 || !downloadsDone) && !graceOver) {
        await sleep(25);
        s.closeIdleConnections();
      }
      clearTimeout(grace);
      if (inflight > 0 || !downloadsDone) logger.warn({ inflight }, 'grace period over; closing the remaining connections');
      s.closeAllConnections();
      await closed;
    }
    await client?.close();
    await passwords.close();
    await stores.close();
  };
  return {
    config,
    logger,
    storage: stores,
    meta,
    blobs,
    metrics,
    koa,
    async listen() {
      server = createServer(koa.callback());
      server.keepAliveTimeout = 65_000;
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(config.port, config.host, () => resolve());
      });
      const { port } = server.address() as AddressInfo;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      return `http://${host}:${port}`;
    },
    close(graceMs = config.shutdownGrace) {
      closing ??= shutdown(graceMs);
      return closing;
    },
  };
}
