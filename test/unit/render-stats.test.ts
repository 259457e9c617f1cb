import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cheerio from 'cheerio';
import { renderStatsHtml, renderStatsJson, topPackages } from '../../src/render/stats.js';

const projects = Array.from({ length: 150 }, (_, i) => ({ name: `pkg-${String(i).padStart(3, '0')}`, size: i * 10 }));
const stats = { projects, total: projects.reduce((sum, p) => sum + p.size, 0) };

test('JSON: the 100 largest projects and the total, in the wire format', () => {
  const text = renderStatsJson(stats);
  assert.ok(text.endsWith('}\n'));
  const doc = JSON.parse(text);
  assert.deepEqual(Object.keys(doc), ['top_packages', 'total_packages_size']);
  assert.equal(doc.total_packages_size, 111750);
  const names = Object.keys(doc.top_packages);
  assert.equal(names.length, 100);
  assert.ok(!names.includes('pkg-049'));
  assert.ok(names.includes('pkg-050'));
  assert.deepEqual(doc.top_packages['pkg-149'], { size: 1490 });
  assert.ok(Object.values(doc.top_packages).every((v: any) => Number.isInteger(v.size) && Object.keys(v).length === 1));
});

test('fewer than 100 projects: all of them; none: an empty object', () => {
  assert.deepEqual(JSON.parse(renderStatsJson({ projects: [{ name: 'a', size: 5 }], total: 5 })), {
    top_packages: { a: { size: 5 } },
    total_packages_size: 5,
  });
  assert.equal(renderStatsJson({ projects: [], total: 0 }), '{"top_packages":{},"total_packages_size":0}\n');
});

test('ranking: size descending, equal sizes by name', () => {
  const top = topPackages({
    projects: [
      { name: 'b', size: 1 },
      { name: 'a', size: 1 },
      { name: 'c', size: 9 },
    ],
    total: 11,
  });
  assert.deepEqual(
    top.map((p) => p.name),
    ['c', 'a', 'b'],
  );
});

test('HTML: a valid page with one row per top project, largest first, names escaped', () => {
  const html = renderStatsHtml({ projects: [...projects, { name: '<evil>', size: 99999 }], total: 1 });
  assert.ok(html.startsWith('<!DOCTYPE html>\n<html lang="en">'));
  const $ = cheerio.load(html);
  assert.ok($('title').text().length > 0);
  const rows = $('tbody tr');
  assert.equal(rows.length, 100);
  assert.deepEqual(
    rows
      .first()
      .find('td')
      .map((_, td) => $(td).text())
      .get(),
    ['1', '<evil>', '99999'],
  );
  assert.ok(html.includes('&lt;evil&gt;'));
  assert.doesNotMatch(html, /<evil>/);
});
