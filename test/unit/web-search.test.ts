/** Project search of the web pages: the name list, the order of private, cached and upstream names, and a large upstream list. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProjectListBatch } from '../../src/model/documents.js';
import { NameList, normalizeQuery } from '../../src/web/name-list.js';
import { ProjectSearch, type SearchSources } from '../../src/web/project-search.js';
import { ManualClock } from '../helpers/manual-clock.js';

async function* batches(names: string[], size = 10_000): AsyncIterable<ProjectListBatch> {
  for (let i = 0; i < names.length; i += size) yield names.slice(i, i + size).map((name) => ({ name }));
}

function sources(over: Partial<SearchSources> & { upstreamNames?: string[] }): SearchSources {
  return {
    privateProjects: async function* () {},
    cachedNames: () => [],
    cachedCount: () => 0,
    upstreamListVersion: () => (over.upstreamNames ? 'v1' : null),
    upstreamList: () => batches(over.upstreamNames ?? []),
    ...over,
  };
}

describe('name list', () => {
  const list = NameList.from(['Requests', 'requests-oauthlib', 'types-requests', 'flask', 'Django_REST'].map((name) => ({ name })));

  test('matches the normalized name, exact match first, display names kept', () => {
    const found = list.search('requests', 0, 10, new Set());
    assert.equal(found.total, 3);
    assert.deepEqual(
      found.hits.map((h) => h.name),
      ['Requests', 'requests-oauthlib', 'types-requests'],
    );
    assert.deepEqual(list.search('rest', 0, 10, new Set()).hits, [{ name: 'Django_REST', normalized: 'django-rest' }]);
  });

  test('a match only in the display spelling does not count', () => {
    assert.equal(list.search('o_r', 0, 10, new Set()).total, 0);
    assert.equal(list.search('o-r', 0, 10, new Set()).total, 1);
  });

  test('pages and exclusions', () => {
    assert.deepEqual(
      list.search('requests', 1, 1, new Set()).hits.map((h) => h.normalized),
      ['requests-oauthlib'],
    );
    const without = list.search('requests', 0, 10, new Set(['requests']));
    assert.deepEqual([without.total, without.hits.length], [2, 2]);
  });

  test('queries are normalized like names', () => {
    assert.equal(normalizeQuery('  Django_REST.framework '), 'django-rest-framework');
    assert.equal(normalizeQuery('a\tb'), 'ab');
    assert.equal(normalizeQuery('   '), '');
  });
});

describe('project search', () => {
  test('private first, then cached, then the upstream list, each project once', async () => {
    const search = new ProjectSearch(
      sources({
        privateProjects: async function* () {
          yield { name: 'acme-tools', displayName: 'Acme.Tools' };
        },
        cachedNames: () => ['acme-cache', 'acme-tools'],
        cachedCount: () => 2,
        upstreamNames: ['acme-zeta', 'acme-cache', 'acme-tools', 'other'],
      }),
      new ManualClock(),
    );
    const found = await search.search('acme', 0, 20);
    assert.equal(found.total, 3);
    assert.deepEqual(
      found.hits.map((h) => `${h.kind}:${h.name}`),
      ['private:Acme.Tools', 'cached:acme-cache', 'upstream:acme-zeta'],
    );
    const second = await search.search('acme', 1, 1);
    assert.deepEqual(
      second.hits.map((h) => h.normalized),
      ['acme-cache'],
    );
  });

  test('the cached list is rebuilt when the count changes, at most every 5 s', async () => {
    const clock = new ManualClock();
    let cached = ['alpha'];
    const search = new ProjectSearch(sources({ cachedNames: () => cached, cachedCount: () => cached.length }), clock);
    assert.equal((await search.search('beta', 0, 10)).total, 0);
    cached = ['alpha', 'beta'];
    assert.equal((await search.search('beta', 0, 10)).total, 0, 'not yet rebuilt');
    clock.advance(5_000);
    assert.equal((await search.search('beta', 0, 10)).total, 1);
  });

  // How fast a search over pypi.org's 600,000 names is: `npm run bench` (the `web` section), not a test.
  test('many upstream names: totals, paging, no match, and the exact name first', async () => {
    const names = Array.from({ length: 50_000 }, (_, i) => `Project_${i.toString(36)}-py${i % 7}`);
    const search = new ProjectSearch(sources({ upstreamNames: names }), new ManualClock());
    const all = await search.search('project', 40, 20);
    assert.deepEqual([all.total, all.hits.length], [50_000, 20]);
    assert.deepEqual(await search.search('nothing-like-this', 40, 20), { total: 0, hits: [] });
    const exact = await search.search('project-abc-py5', 0, 20);
    assert.deepEqual(exact.hits[0], { name: 'Project_abc-py5', normalized: 'project-abc-py5', kind: 'upstream' });
  });
});
