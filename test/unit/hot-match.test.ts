import assert from 'node:assert/strict';
import { test } from 'node:test';
import Router from '@koa/router';
import { hotMatcher } from '../../src/http/hot-match.js';
import type { HotHandler } from '../../src/http/hot-route.js';

const handler: HotHandler = async () => ({ status: 200, headers: [], body: null });
const koa = () => {};

/** A table shaped like larder's: pages first (one with a parameter as its first segment), then the hot routes. */
function table() {
  const router = new Router({ strict: true });
  router.get('/', koa);
  router.get('/project/:name/', koa);
  router.get('/:lang/help', koa);
  router.post('/simple/', koa);
  const hot = new Map<string, HotHandler>();
  for (const path of ['/simple', '/simple/', '/simple/:project/', '/simple/:project', '/pypi/:project/json', '/packages/:project/:filename']) {
    router.get(path, koa);
    hot.set(path, handler);
  }
  router.get('/packages/:project/:filename/extra', koa);
  router.use(koa);
  return { router, hot };
}

/** What the entry picked before: the router's own first route matching path and method. */
function routerPick({ router, hot }: ReturnType<typeof table>, path: string, method: string) {
  const layer = router.match(path, method).pathAndMethod.find((candidate) => candidate.methods.length > 0);
  const route = layer && typeof layer.path === 'string' ? layer.path : null;
  if (route === null || !hot.has(route)) return null;
  return { route, params: layer!.params(path, layer!.captures(path)) };
}

test('the first-segment dispatch picks the same route and parameters as the router, for every kind of path', () => {
  const routes = table();
  const match = hotMatcher(routes);
  const paths = [
    '/',
    '/simple',
    '/simple/',
    '/SIMPLE/',
    '/Simple/Foo/',
    '/simple/foo',
    '/simple/foo/',
    '/simple/foo/bar/',
    '/simple//',
    '/%73imple/',
    '/pypi/foo/json',
    '/pypi/foo/json/',
    '/packages/foo/foo-1.0.whl',
    '/packages/foo/foo%2B1.0.whl',
    '/packages/foo/foo-1.0.whl/extra',
    '/project/foo/',
    '/en/help',
    '/simple/help',
    '/nothing/here',
    '/simplex/',
  ];
  for (const method of ['GET', 'HEAD', 'POST']) {
    for (const path of paths) {
      const got = match(path, method);
      assert.deepEqual(got && { route: got.route, params: got.params }, routerPick(routes, path, method), `${method} ${path}`);
    }
  }
});

test('a route whose first segment is a parameter stays ahead of a later hot route on the same path', () => {
  const router = new Router({ strict: true });
  router.get('/:anything/', koa);
  const hot = new Map<string, HotHandler>([['/simple/', handler]]);
  router.get('/simple/', koa);
  assert.equal(hotMatcher({ router, hot })('/simple/', 'GET'), null, 'the page route runs, not the hot one');
});
