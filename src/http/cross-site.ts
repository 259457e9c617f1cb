/**
 * Refuses a state-changing request (any method but GET, HEAD and OPTIONS, on every path) that a browser
 * says comes from another site. A form on any page elsewhere would otherwise carry the HTTP Basic
 * credentials the browser holds for larder (the session cookie is SameSite=Strict, Basic credentials are
 * not). Clients that are not browsers (twine, pip, curl, poetry, pdm) send neither `Sec-Fetch-Site` nor
 * `Origin` and pass. The rule is applied whatever the credentials, since no legitimate client of a
 * state-changing request is a page of another site.
 */
import type { Context, Next } from 'koa';
import { forbidden } from '../base/errors.js';
import type { Config } from '../config/schema.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** How much of a refused Origin header the message repeats. */
const SHOWN_ORIGIN = 100;

/**
 * Why a request with these `Sec-Fetch-Site` and `Origin` values is cross-site, or null when it is not.
 * `sameOrigin` says whether an Origin value is larder's own. A sibling subdomain is `same-site` but not
 * larder's origin: refused too, as pypi.org and Django do.
 */
export function crossSiteReason(fetchSite: string, origin: string, sameOrigin: (origin: string) => boolean): string | null {
  const site = fetchSite.toLowerCase();
  if (site === 'cross-site') return 'the browser says it comes from another site (Sec-Fetch-Site: cross-site)';
  if (origin) {
    if (origin === 'null') return 'the browser hides the page it comes from (Origin: null)';
    if (!sameOrigin(origin)) return `it comes from a page of ${origin.slice(0, SHOWN_ORIGIN)}, not of larder`;
    return null;
  }
  if (site && site !== 'same-origin' && site !== 'none') return `the browser says it comes from another origin (Sec-Fetch-Site: ${site.slice(0, 20)})`;
  return null;
}

/**
 * larder's own origin is that of `LARDER_PUBLIC_URL`, or the scheme and `Host` the request was sent to: a
 * browser sets both `Host` and `Origin`, so when they agree the page is of the very origin it posts to. The
 * Host value is only compared here, never used to build anything.
 */
export function crossSiteGuard(config: Pick<Config, 'publicUrl'>) {
  const publicOrigin = config.publicUrl === null ? null : new URL(config.publicUrl).origin;
  return async function refuseCrossSite(ctx: Context, next: Next): Promise<void> {
    if (!SAFE_METHODS.has(ctx.method)) {
      const sameOrigin = (origin: string) => {
        const lower = origin.toLowerCase();
        return lower === publicOrigin || lower === `${ctx.protocol}://${ctx.get('Host').toLowerCase()}`;
      };
      const why = crossSiteReason(ctx.get('Sec-Fetch-Site'), ctx.get('Origin'), sameOrigin);
      if (why) {
        throw forbidden('cross_site_request', `Cross-site request refused: ${why}; send it from larder's own pages, or from a client that is not a browser.`);
      }
    }
    await next();
  };
}
