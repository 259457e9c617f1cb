/**
 * The web pages people browse (pypi.org's URL scheme): `/`, `/search/`, `/project/<p>/[<v>/]`, `/help/`,
 * `/account/login/` and the owner actions; a user's own `/account/` (API tokens, password) and the
 * administrators' `/admin/users/`. Registered in the one route table ahead of the index API, as a group with
 * its own error handling (errors as pages) and without the index API's read-auth check: the pages apply it
 * themselves (a login form rather than a bare 401).
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { LarderError } from '../base/errors.js';
import { reasonPhrase } from '../http/error-middleware.js';
import { loggedError } from '../http/logged-error.js';
import { routeGroup } from '../http/route-group.js';
import { registerAccountRoutes } from './account-routes.js';
import { registerPageRoutes } from './page-routes.js';
import { registerPasswordRoutes } from './password-routes.js';
import { registerPublisherRoutes } from './publisher-routes.js';
import { ProjectSearch } from './project-search.js';
import { ProjectViews } from './project-view.js';
import { SCRIPT, STYLESHEET } from './render/assets.js';
import { sendPage, setPageHeaders } from './page-response.js';
import { renderError } from './render/error.js';
import { ANONYMOUS } from './render/layout.js';
import { SESSION_COOKIE, SessionSigner } from './session.js';
import { registerTokenRoutes } from './token-routes.js';
import { registerUserAdminRoutes } from './user-admin-routes.js';
import { viewerOf, whoIsLooking } from './viewer.js';
import type { WebContext, WebDeps } from './web-context.js';

export type { WebContext, WebDeps };

const LOGIN_PATH = '/account/login/';

export function registerWebPages(router: Router, deps: WebDeps): void {
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
    views: new ProjectViews(http.source, http.meta, new Set(http.config.mergeAllowList), deps.policy, deps.descriptions),
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

  // In front of each route below, and of no other. A page that fails with larder's own error is answered in
  // the site's layout; what a page passes on to the index API, and errors of no known kind, go to the API's
  // error handling.
  const pageErrors: Middleware = async (ctx, next) => {
    ctx.state.webStarted = performance.now();
    try {
      await next();
    } catch (err) {
      if (!(err instanceof LarderError) || ctx.state.webPassedOn) throw err;
      ctx.state.errorCode = err.code;
      if (err.status >= 500) http.logger.error({ err: loggedError(err), code: err.code, method: ctx.method, path: ctx.path }, 'request failed');
      // Only the session cookie says who is looking here: checking the request's password again would count
      // a wrong one twice against the login limit. A store that cannot say shows the page to nobody in particular.
      const session = await signer.verify(ctx.cookies.get(SESSION_COOKIE)).catch(() => null);
      ctx.set(err.headers);
      sendPage(ctx, renderError(err.status, err.message, session ? viewerOf(session, signer) : ANONYMOUS), err.status);
      ctx.message = reasonPhrase(err.message);
    }
  };
  const asset = (type: string, body: string) => (ctx: Context) => {
    ctx.type = type;
    ctx.set('Cache-Control', ctx.query.v ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = body;
  };
  const pages = routeGroup(router, pageErrors);
  pages.get('/static/larder.css', asset('text/css; charset=utf-8', STYLESHEET));
  pages.get('/static/larder.js', asset('text/javascript; charset=utf-8', SCRIPT));
  registerPageRoutes(pages, web);
  registerAccountRoutes(pages, web);
  registerTokenRoutes(pages, web);
  registerPasswordRoutes(pages, web);
  registerUserAdminRoutes(pages, web);
  registerPublisherRoutes(pages, web);
}
