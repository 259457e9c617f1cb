/**
 * The web pages people browse (pypi.org's URL scheme): `/`, `/search/`, `/project/<p>/[<v>/]`, `/help/`,
 * `/account/login/` and the owner actions. Mounted before the read-auth check, which it applies itself
 * (a login form rather than a bare 401); every other path goes on to the index API unchanged.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { registerAccountRoutes } from './account-routes.js';
import { registerPageRoutes } from './page-routes.js';
import { ProjectSearch } from './project-search.js';
import { ProjectViews } from './project-view.js';
import { SCRIPT, STYLESHEET } from './render/assets.js';
import { setPageHeaders } from './page-response.js';
import { SessionSigner } from './session.js';
import { whoIsLooking } from './viewer.js';
import type { WebContext, WebDeps } from './web-context.js';

export type { WebContext, WebDeps };

const LOGIN_PATH = '/account/login/';

export function createWebUi(deps: WebDeps): Middleware {
  const { http } = deps;
  const signer = new SessionSigner(deps.sessionKey, http.meta, http.clock);
  const search = new ProjectSearch(
    {
      privateProjects: () => http.meta.listProjects(),
      cachedNames: function* () {
        for (const { entry } of deps.documents.pages()) {
          const page = entry.value as { displayName?: string } | null;
          if (page?.displayName) yield page.displayName;
        }
      },
      cachedCount: () => deps.documents.pageCount(),
      upstreamListVersion: () => {
        const record = deps.upstream ? deps.documents.getRootList() : undefined;
        return record ? `${record.fetchedAt}:${record.count}` : null;
      },
      upstreamList: () => deps.upstream!.listProjects(),
    },
    http.clock,
  );
  const web: WebContext = {
    deps,
    signer,
    search,
    views: new ProjectViews(http.source, http.meta, new Set(http.config.mergeAllowList), deps.policy),
    async look(ctx) {
      const looker = await whoIsLooking(ctx, signer, http.authenticator);
      if (http.config.readAuth && !looker.session) {
        setPageHeaders(ctx);
        ctx.status = 303;
        ctx.redirect(`${LOGIN_PATH}?next=${encodeURIComponent(ctx.url)}`);
        return null;
      }
      return looker;
    },
  };

  const router = new Router({ strict: true });
  // Runs only for the paths below (the router passes every other request on untouched).
  router.use((ctx, next) => {
    ctx.state.webStarted = performance.now();
    return next();
  });
  const asset = (type: string, body: string) => (ctx: Context) => {
    ctx.type = type;
    ctx.set('Cache-Control', ctx.query.v ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = body;
  };
  router.get('/static/larder.css', asset('text/css; charset=utf-8', STYLESHEET));
  router.get('/static/larder.js', asset('text/javascript; charset=utf-8', SCRIPT));
  registerPageRoutes(router, web);
  registerAccountRoutes(router, web);
  return router.routes() as Middleware;
}
