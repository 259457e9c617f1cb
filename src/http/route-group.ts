/**
 * A group of routes in the one route table that share a first step: the web pages' error handling (a page in
 * the site's layout), or the index API's read-credential check. The step is registered as the first
 * middleware of each route the group adds, so it runs for those routes only.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';

/** Where a family of routes registers itself: the one router, or a group of it. Routes are added by path. */
export type Routes = Pick<Router, 'get' | 'post' | 'delete'>;

type Register = (path: string, ...handlers: Middleware[]) => Router;

export function routeGroup(router: Router, front: Middleware): Routes {
  const get: Register = (path, ...handlers) => router.get(path, front, ...handlers);
  const post: Register = (path, ...handlers) => router.post(path, front, ...handlers);
  const remove: Register = (path, ...handlers) => router.delete(path, front, ...handlers);
  return { get, post, delete: remove } as Routes;
}
