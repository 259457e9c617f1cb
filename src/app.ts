/** The composition root: builds stores, sources and the HTTP app from one Config. The only place that wires. */
import { mkdir, access, constants } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import { Authenticator } from './auth/authenticator.js';
import type { Config } from './config/schema.js';
import { ProjectAdmin } from './index/project-admin.js';
import { OverlaySource } from './index/sources/overlay-source.js';
import { PrivateSource } from './index/sources/private-source.js';
import { createLogger } from './logger.js';
import type { HttpDeps } from './http/deps.js';
import { errorMiddleware } from './http/error-middleware.js';
import { readAuthMiddleware } from './http/read-auth.js';
import { registerAdminRoutes } from './http/routes/admin.js';
import { registerFileRoutes } from './http/routes/files.js';
import { registerHealthRoutes } from './http/routes/health.js';
import { registerJsonApiRoutes } from './http/routes/json-api.js';
import { registerSimpleRoutes } from './http/routes/simple.js';
import { registerStatsRoutes } from './http/routes/stats.js';
import { registerUploadRoutes } from './http/routes/upload.js';
import { BlobStore } from './store/blob-store.js';
import { MetaStore } from './store/meta-store.js';
import { Publisher } from './upload/publish.js';
import { UpstreamClient } from './upstream/client.js';
import { CachedSource } from './index/sources/cached-source.js';
import { UpstreamSource } from './index/sources/upstream-source.js';
import { RenderedCache } from './http/rendered-cache.js';
import { RootRenderCache } from './http/root-render-cache.js';
import { join } from 'node:path';

export interface Larder {
  config: Config;
  logger: Logger;
  meta: MetaStore;
  blobs: BlobStore;
  koa: Koa;
  /** Starts listening; resolves with the URL the server is reachable at. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

async function prepareDataDir(config: Config, blobs: BlobStore): Promise<void> {
  await mkdir(config.data, { recursive: true });
  try {
    await access(config.data, constants.W_OK);
  } catch {
    throw new Error(`data directory ${config.data} is not writable`);
  }
  await blobs.init();
  await blobs.purgeTmp();
}

export async function createLarder(config: Config, options: { logger?: Logger } = {}): Promise<Larder> {
  const logger = options.logger ?? createLogger(config);
  const blobs = new BlobStore(config.data);
  await prepareDataDir(config, blobs);
  const meta = new MetaStore(config.data);

  const privateSource = new PrivateSource(meta, blobs);
  const client = config.upstream ? new UpstreamClient(config) : null;
  const cached =
    client && config.upstream
      ? new CachedSource(
          new UpstreamSource(client, UpstreamClient.stripCredentials(config.upstream), config.upstreamJsonApi),
          meta,
          blobs,
          {
            pageTtl: config.pageTtl,
            rootTtl: config.rootTtl,
            notFoundTtl: config.notFoundTtl,
            offline: config.offline,
            cacheDir: join(config.data, 'cache'),
          },
          logger,
        )
      : null;
  const source = new OverlaySource(privateSource, cached, { mergeAllowList: new Set(config.mergeAllowList) });
  const deps: HttpDeps = {
    config,
    source,
    privateSource,
    meta,
    blobs,
    authenticator: new Authenticator(meta),
    publisher: new Publisher(meta, blobs, cached),
    logger,
    rendered: new RenderedCache(config.memoryCacheSize),
    rootPages: new RootRenderCache(join(config.data, 'cache')),
  };

  const koa = new Koa();
  const router = new Router({ strict: true });
  registerHealthRoutes(router);
  registerSimpleRoutes(router, deps);
  registerJsonApiRoutes(router, deps);
  registerFileRoutes(router, deps);
  registerStatsRoutes(router, deps);
  registerUploadRoutes(router, deps);
  registerAdminRoutes(router, deps, new ProjectAdmin(meta));
  koa.use(errorMiddleware(logger));
  if (config.readAuth) koa.use(readAuthMiddleware(deps.authenticator));
  koa.use(router.routes());
  koa.use(router.allowedMethods());

  let server: Server | null = null;
  return {
    config,
    logger,
    meta,
    blobs,
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
    async close() {
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        });
      }
      await client?.close();
      await meta.close();
    },
  };
}
