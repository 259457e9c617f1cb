import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cheerio from 'cheerio';
import { combined, largest, renderStatsJson, type SideInput } from '../../src/render/stats.js';
import { ANONYMOUS } from '../../src/web/render/layout.js';
import { renderStats } from '../../src/web/render/stats.js';

const side = (projects: { name: string; bytes: number; files?: number }[]): SideInput => ({
  projects: projects.map((p) => ({ name: p.name, normalized: p.name.toLowerCase(), files: p.files ?? 1, bytes: p.bytes })),
  files: projects.reduce((n, p) => n + (p.files ?? 1), 0),
  bytes: projects.reduce((n, p) => n + p.bytes, 0),
});
const EMPTY = side([]);
const many = side(Array.from({ length: 150 }, (_, i) => ({ name: `pkg-${String(i).padStart(3, '0')}`, bytes: i * 10 })));

test('JSON (keys in code-point order, as every JSON document): the 100 largest projects, the total of private and cached bytes, and each side on its own', () => {
  const text = renderStatsJson({ private: many, cached: side([{ name: 'numpy', bytes: 36_000_000, files: 3 }]) });
  assert.ok(text.endsWith('}\n'));
  const doc = JSON.parse(text);
  assert.deepEqual(Object.keys(doc), ['cached', 'private', 'top_packages', 'total_packages_size']);
  assert.equal(doc.total_packages_size, 111750 + 36_000_000);
  assert.deepEqual(doc.private, { projects: 150, files: 150, bytes: 111750 });
  assert.deepEqual(doc.cached, { projects: 1, files: 3, bytes: 36_000_000 });
  const names = Object.keys(doc.top_packages);
  assert.equal(names.length, 100);
  assert.ok(names.includes('numpy'));
  assert.ok(!names.includes('pkg-050') && names.includes('pkg-051'));
  assert.deepEqual(doc.top_packages['pkg-149'], { size: 1490 });
  assert.ok(Object.values(doc.top_packages).every((v: any) => Number.isInteger(v.size) && Object.keys(v).length === 1));
});

test('nothing held: empty top packages and zeros', () => {
  assert.equal(
    renderStatsJson({ private: EMPTY, cached: EMPTY }),
    '{"cached":{"bytes":0,"files":0,"projects":0},"private":{"bytes":0,"files":0,"projects":0},"top_packages":{},"total_packages_size":0}\n',
  );
});

test('ranking: size descending, equal sizes by name; a project both private and cached counts once with both sizes', () => {
  const top = largest(
    side([
      { name: 'b', bytes: 1 },
      { name: 'a', bytes: 1 },
      { name: 'c', bytes: 9 },
    ]).projects,
  );
  assert.deepEqual(
    top.map((p) => p.name),
    ['c', 'a', 'b'],
  );
  const both = combined({ private: side([{ name: 'Acme', bytes: 5 }]), cached: side([{ name: 'acme', bytes: 7, files: 2 }]) });
  assert.deepEqual(both, [{ name: 'Acme', normalized: 'acme', files: 3, bytes: 12 }]);
});

test('HTML: the site layout, each side counted on its own, the largest projects of each linked, names escaped', () => {
  const html = renderStats(
    { private: side([{ name: '<evil>', bytes: 7794, files: 2 }]), cached: side([{ name: 'numpy', bytes: 36_000_000, files: 3 }]) },
    true,
    ANONYMOUS,
  );
  const $ = cheerio.load(html);
  assert.equal($('header.site').length, 1, 'the site header');
  assert.equal($('link[rel="stylesheet"]').length, 1);
  const facts = $('dl.facts dd')
    .map((_, dd) => $(dd).text())
    .get();
  assert.deepEqual(facts, ['1 project, 2 files, 7.8 KB (7,794 bytes)', '1 project, 3 files, 36.0 MB (36,000,000 bytes)', '36.0 MB (36,007,794 bytes)']);
  assert.deepEqual(
    $('#private-h + table tbody tr td')
      .map((_, td) => $(td).text())
      .get(),
    ['1', '<evil>', '2', '7.8 KB'],
  );
  assert.equal($('#cached-h + table a').attr('href'), '/project/numpy/');
  assert.ok(html.includes('&lt;evil&gt;'));
  assert.doesNotMatch(html, /<evil>/);
  assert.match(renderStats({ private: EMPTY, cached: EMPTY }, false, ANONYMOUS), /<dt>Cached from the upstream<\/dt><dd>no upstream<\/dd>/);
});
