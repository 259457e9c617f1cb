/**
 * A group of routes in the one route table that share a first step: the web pages' error handling (a page in
 * the site's layout), or the index API's read-credential check. Put in front of each route the group adds,
 * it runs for those routes only, never for a route another group registers on the same router.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';

export function routeGroup(router: Router, front: Middleware, register: () => void): void {
  const first = router.stack.length;
  register();
  for (const layer of router.stack.slice(first)) layer.stack.unshift(front);
}
