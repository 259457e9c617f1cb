/** The data directory's names are what existing data directories hold: a rename here would orphan them. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataLayout } from '../../src/store/data-layout.js';

test('the data directory keeps the names existing installations use', () => {
  const data = join('/srv', 'larder');
  const layout = dataLayout(data);
  assert.equal(layout.root, data);
  assert.equal(layout.indexDb, join(data, 'meta'));
  assert.equal(layout.blobs, join(data, 'blobs', 'sha256'));
  assert.equal(layout.tmp, join(data, 'tmp'));
  assert.equal(layout.cache, join(data, 'cache'));
  assert.equal(layout.sessionKey, join(data, 'web-session.key'));
});

test("the first upstream's project list is in cache/, the others' each in cache/upstreams/<name>/", () => {
  const layout = dataLayout('/srv/larder');
  assert.equal(layout.upstreamRootList(null), join('/srv/larder', 'cache', 'upstream-root.txt'));
  assert.equal(layout.upstreamRootList('internal'), join('/srv/larder', 'cache', 'upstreams', 'internal', 'upstream-root.txt'));
});
