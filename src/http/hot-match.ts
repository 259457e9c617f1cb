/**
 * Which hot route a GET or HEAD runs: the first route of the table matching its path and method, as Koa's
 * router would pick it, found among only the routes that can match the path's first segment (those whose
 * pattern starts with that literal segment, and those starting with a parameter), instead of all of them.
 */
import type Router from '@koa/router';
import type { HotHandler } from './hot-route.js';
import type { RouteTable } from './route-table.js';

type Layer = Router['stack'][number];

export interface HotMatch {
  route: string;
  handler: HotHandler;
  params: Record<string, string>;
}

export type HotMatcher = (path: string, method: string) => HotMatch | null;

/** A pattern's first segment when it is plain text (`/simple/:project/` → `simple`), else null: it may match any. */
function literalFirstSegment(pattern: unknown): string | null {
  if (typeof pattern !== 'string') return null;
  const found = /^\/([A-Za-z0-9._~-]*)(?:\/|$)/.exec(pattern);
  // The router matches paths case-insensitively.
  return found ? found[1]!.toLowerCase() : null;
}

function firstSegment(path: string): string {
  const slash = path.indexOf('/', 1);
  return (slash < 0 ? path.slice(1) : path.slice(1, slash)).toLowerCase();
}

export function hotMatcher({ router, hot }: RouteTable): HotMatcher {
  // Routes only (middleware has no methods), in the router's order.
  const routes = router.stack.filter((layer) => layer.methods.length > 0);
  const anyFirst = routes.filter((layer) => literalFirstSegment(layer.path) === null);
  const byFirst = new Map<string, Layer[]>();
  for (const layer of routes) {
    const segment = literalFirstSegment(layer.path);
    if (segment !== null && !byFirst.has(segment)) {
      byFirst.set(
        segment,
        routes.filter((candidate) => candidate === layer || literalFirstSegment(candidate.path) === segment || anyFirst.includes(candidate)),
      );
    }
  }
  return (path, method) => {
    const candidates = byFirst.get(firstSegment(path)) ?? anyFirst;
    for (const layer of candidates) {
      if (!layer.methods.includes(method) || !layer.match(path)) continue;
      const route = typeof layer.path === 'string' ? layer.path : null;
      const handler = route === null ? undefined : hot.get(route);
      if (!handler) return null;
      return { route: route!, handler, params: layer.params(path, layer.captures(path)) };
    }
    return null;
  };
}
