/**
 * Every route in one router (`@koa/router`, whose matcher the entry uses once per request to pick the
 * route): the web pages first, then the index API. The hot routes are plain request → answer functions
 * (`HotHandler`) that `entry.ts` answers without Koa; the others are Koa middleware. With LARDER_READ_AUTH
 * each index API route but /health checks credentials first (a bare 401), while the web pages ask for a
 * login themselves (a form).
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ProjectAdmin } from '../upload/project-admin.js';
import type { BackendCheck } from '../store/backend-check.js';
import type { HttpDeps } from './deps.js';
import type { SmallBodies } from './file-answer.js';
import type { HotHandler } from './hot-route.js';
import type { Negotiator } from './negotiate.js';
import { readAuthMiddleware } from './read-auth.js';
import { routeGroup, type Routes } from './route-group.js';
import { registerAdminRoutes } from './routes/admin.js';
import { fileRoute } from './routes/files.js';
import { registerHealthRoutes } from './routes/health.js';
import { jsonApiRoute } from './routes/json-api.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { projectPageRoute, simpleRedirectRoute, simpleRootRoute } from './routes/simple.js';
import { registerStatsRoutes } from './routes/stats.js';
import { registerUploadRoutes } from './routes/upload.js';
import { registerOidcRoutes, registerPublisherApiRoutes, type TrustedPublishing } from './routes/trusted-publishing.js';

export interface RouteTable {
  router: Router;
  /** The hot routes' handlers by their route pattern (GET and HEAD). */
  hot: Map<string, HotHandler>;
}

export interface RouteParts {
  negotiate: Negotiator;
  smallBodies: SmallBodies;
  backends: readonly BackendCheck[];
  admin: ProjectAdmin;
  /** The OIDC token exchange and the publishers' management. */
  trustedPublishing: TrustedPublishing;
  /**
   * Registers the web pages (`src/web`, a layer above this one). They come first: a page runs before the index
   * API's route on the same path and may pass the request on to it (`/stats/` as JSON).
   */
  pages(router: Router): void;
}

/** The Koa side of a hot route: never reached, since the entry answers every GET and HEAD the route matches. */
const answeredByEntry: Middleware = () => {
  throw new Error('a hot route reached the Koa stack');
};

export function routeTable(deps: HttpDeps, parts: RouteParts): RouteTable {
  const router = new Router({ strict: true });
  const hot = new Map<string, HotHandler>();
  parts.pages(router);
  registerHealthRoutes(router, parts.backends);
  registerOidcRoutes(router, deps, parts.trustedPublishing);
  // The index API checks read credentials when reads need them. A hot route's GET or HEAD checks them in the
  // entry; its Koa side, registered so that another method on the path gets its 405, is never reached.
  const api: Routes = deps.config.readAuth ? routeGroup(router, readAuthMiddleware(deps.authenticator)) : router;
  const hotRoute = (path: string, handler: HotHandler) => {
    api.get(path, answeredByEntry);
    hot.set(path, handler);
  };
  registerMetricsRoutes(api, deps.metrics, deps.config.metricsToken);
  hotRoute('/simple', simpleRedirectRoute);
  hotRoute('/simple/', simpleRootRoute(deps, parts.negotiate));
  hotRoute('/simple/:project/', projectPageRoute(deps, parts.negotiate, true));
  hotRoute('/simple/:project', projectPageRoute(deps, parts.negotiate, false));
  for (const prefix of ['pypi', 'index']) {
    for (const slash of ['', '/']) {
      hotRoute(`/${prefix}/:project/json${slash}`, jsonApiRoute(deps, prefix, false));
      hotRoute(`/${prefix}/:project/:version/json${slash}`, jsonApiRoute(deps, prefix, true));
    }
  }
  hotRoute('/packages/:project/:filename', fileRoute(deps, parts.smallBodies));
  registerStatsRoutes(api, deps);
  registerUploadRoutes(api, deps);
  registerAdminRoutes(api, deps, parts.admin);
  registerPublisherApiRoutes(api, deps, parts.trustedPublishing);
  return { router, hot };
}
