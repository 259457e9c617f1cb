import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as cheerio from 'cheerio';
import type { ProjectPage } from '../../src/model/documents.js';
import { normalizeName } from '../../src/model/names.js';
import { fileEntry, projectPage, SHA } from '../helpers/model-builders.js';
import { renderProjectHtml, renderRootHtml, renderRootHtmlChunks } from '../../src/render/simple-html.js';
import { API_VERSION } from '../../src/render/api-version.js';
import { FROM_PROJECT_PAGE } from '../../src/render/urls.js';

const FIXTURES = new URL('../fixtures/spec/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

const BASE = 'http://larder.test:3142';
const META_SHA = 'b'.repeat(64);

const file = fileEntry;
const page = projectPage;

function anchorLine(html: string, filename: string): string {
  const line = html.split('\n').find((l) => l.includes(`>${filename}</a>`));
  assert.ok(line, `no anchor for ${filename} in:\n${html}`);
  return line.trim();
}

test('project page has the exact PyPI shape', () => {
  const html = renderProjectHtml(
    page([
      file('demo_pkg-1.0-py3-none-any.whl', { requiresPython: '>=3.8', coreMetadata: { sha256: META_SHA } }),
      file('demo_pkg-1.0.tar.gz', { hashes: { sha256: 'c'.repeat(64) } }),
    ]),
    BASE,
  );
  assert.equal(
    html,
    [
      '<!DOCTYPE html>',
      '<html lang="en">',
      '  <head>',
      '    <meta charset="utf-8">',
      '    <meta name="pypi:repository-version" content="1.4">',
      '    <meta name="pypi:project-status" content="active">',
      '    <title>Links for demo-pkg</title>',
      '  </head>',
      '  <body>',
      '    <h1>Links for demo-pkg</h1>',
      `    <a href="${BASE}/packages/demo-pkg/demo_pkg-1.0-py3-none-any.whl#sha256=${SHA}" data-requires-python="&gt;=3.8" data-dist-info-metadata="sha256=${META_SHA}" data-core-metadata="sha256=${META_SHA}">demo_pkg-1.0-py3-none-any.whl</a><br />`,
      `    <a href="${BASE}/packages/demo-pkg/demo_pkg-1.0.tar.gz#sha256=${'c'.repeat(64)}">demo_pkg-1.0.tar.gz</a><br />`,
      '  </body>',
      '</html>',
      '<!--SERIAL 42-->',
      '',
    ].join('\n'),
  );
});

test('project page links relative to the page lead to /packages/ under any host and path prefix', () => {
  const html = renderProjectHtml(page([file('demo_pkg-1.0+local.tar.gz', { hashes: { sha256: 'c'.repeat(64) } })]), FROM_PROJECT_PAGE);
  const href = cheerio.load(html)('a').attr('href')!;
  assert.equal(href, `../../packages/demo-pkg/demo_pkg-1.0%2Blocal.tar.gz#sha256=${'c'.repeat(64)}`);
  assert.equal(
    new URL(href, 'http://larder.test:3142/simple/demo-pkg/').href,
    `http://larder.test:3142/packages/demo-pkg/demo_pkg-1.0%2Blocal.tar.gz#sha256=${'c'.repeat(64)}`,
  );
  assert.equal(new URL(href, 'https://proxy.example/pypi/simple/demo-pkg/?format=text/html').pathname, '/pypi/packages/demo-pkg/demo_pkg-1.0%2Blocal.tar.gz');
});

test('repository-version meta is the advertised API version', () => {
  const html = renderProjectHtml(page([]), BASE);
  assert.equal(API_VERSION, '1.4');
  assert.match(html, /<meta name="pypi:repository-version" content="1\.4">/);
});

test('requires-python escapes < > & " \'', () => {
  const html = renderProjectHtml(page([file('demo_pkg-1.0.tar.gz', { requiresPython: '>=3.8,<4' })]), BASE);
  assert.match(anchorLine(html, 'demo_pkg-1.0.tar.gz'), / data-requires-python="&gt;=3\.8,&lt;4"/);
  const odd = renderProjectHtml(page([file('demo_pkg-1.0.tar.gz', { requiresPython: `>=3"'&` })]), BASE);
  assert.match(odd, /data-requires-python="&gt;=3&quot;&#39;&amp;"/);
});

test('requires-python "" (old uploads) gives no attribute', () => {
  const html = renderProjectHtml(page([file('demo_pkg-1.0.tar.gz', { requiresPython: '' })]), BASE);
  assert.doesNotMatch(html, /data-requires-python/);
});

test('yanked without reason is data-yanked="", with reason carries it escaped; never bare', () => {
  const html = renderProjectHtml(
    page([
      file('demo_pkg-1.0.tar.gz', { yanked: true, yankedReason: null }),
      file('demo_pkg-2.0.tar.gz', { yanked: true, yankedReason: 'broken <b> & "bad"' }),
      file('demo_pkg-3.0.tar.gz'),
    ]),
    BASE,
  );
  assert.match(anchorLine(html, 'demo_pkg-1.0.tar.gz'), / data-yanked=""/);
  assert.match(anchorLine(html, 'demo_pkg-2.0.tar.gz'), / data-yanked="broken &lt;b&gt; &amp; &quot;bad&quot;"/);
  assert.doesNotMatch(anchorLine(html, 'demo_pkg-3.0.tar.gz'), /data-yanked/);
  assert.doesNotMatch(html, /data-yanked(?!=")/);
});

test('core metadata in both attributes with one value; none without metadata; never "false"', () => {
  const html = renderProjectHtml(
    page([
      file('demo_pkg-1.0-py3-none-any.whl', { coreMetadata: { sha256: META_SHA, blake2b_256: 'd'.repeat(64) } }),
      file('demo_pkg-1.0.tar.gz', { coreMetadata: false }),
      file('demo_pkg-2.0-py3-none-any.whl', { coreMetadata: true }),
      file('demo_pkg-3.0-py3-none-any.whl', { coreMetadata: { blake2b_256: 'd'.repeat(64) } }),
    ]),
    BASE,
  );
  const wheel = anchorLine(html, 'demo_pkg-1.0-py3-none-any.whl');
  assert.match(wheel, new RegExp(` data-dist-info-metadata="sha256=${META_SHA}" data-core-metadata="sha256=${META_SHA}"`));
  assert.doesNotMatch(anchorLine(html, 'demo_pkg-1.0.tar.gz'), /metadata/);
  assert.match(anchorLine(html, 'demo_pkg-2.0-py3-none-any.whl'), / data-dist-info-metadata="true" data-core-metadata="true"/);
  // A hash pip cannot check still says the file exists.
  assert.match(anchorLine(html, 'demo_pkg-3.0-py3-none-any.whl'), / data-core-metadata="true"/);
  assert.doesNotMatch(html, /="false"/);
});

test('href carries #sha256=; other hashes only when sha256 is unknown; blake2b never', () => {
  const html = renderProjectHtml(
    page([
      file('demo_pkg-1.0.tar.gz', { hashes: { md5: 'e'.repeat(32), sha256: SHA, sha512: 'f'.repeat(128) } }),
      file('demo_pkg-2.0.tar.gz', { hashes: { md5: 'e'.repeat(32), sha512: 'f'.repeat(128) } }),
      file('demo_pkg-3.0.tar.gz', { hashes: { md5: 'e'.repeat(32) } }),
      file('demo_pkg-4.0.tar.gz', { hashes: { blake2b_256: 'd'.repeat(64) } }),
      file('demo_pkg-5.0.tar.gz', { hashes: { sha256: SHA.toUpperCase() } }),
    ]),
    BASE,
  );
  assert.match(anchorLine(html, 'demo_pkg-1.0.tar.gz'), new RegExp(`href="[^"#]+#sha256=${SHA}"`));
  assert.match(anchorLine(html, 'demo_pkg-2.0.tar.gz'), new RegExp(`#sha512=${'f'.repeat(128)}"`));
  assert.match(anchorLine(html, 'demo_pkg-3.0.tar.gz'), new RegExp(`#md5=${'e'.repeat(32)}"`));
  assert.match(anchorLine(html, 'demo_pkg-4.0.tar.gz'), /href="[^"#]+"/);
  assert.match(anchorLine(html, 'demo_pkg-5.0.tar.gz'), new RegExp(`#sha256=${SHA}"`));
});

test('file URL percent-encodes the filename; link text is the filename (last path segment, decoded)', () => {
  const name = 'demo_pkg-1.0+cu121-py3-none-any.whl';
  const html = renderProjectHtml(page([file(name)]), BASE);
  const $ = cheerio.load(html);
  const a = $('a').first();
  const href = a.attr('href')!;
  assert.equal(href, `${BASE}/packages/demo-pkg/demo_pkg-1.0%2Bcu121-py3-none-any.whl#sha256=${SHA}`);
  assert.equal(a.text(), name);
  assert.equal(decodeURIComponent(new URL(href).pathname.split('/').pop()!), a.text());
});

test('files sort by PEP 440 version, then filename', () => {
  const names = [
    'demo_pkg-1.10.tar.gz',
    'demo_pkg-1.9-py3-none-any.whl',
    'demo_pkg-1.9.tar.gz',
    'demo_pkg-1.0.tar.gz',
    'demo_pkg-1.0rc1.tar.gz',
    'demo_pkg-1.0-py3-none-any.whl',
  ];
  const html = renderProjectHtml(page(names.map((n) => file(n))), BASE);
  const order = cheerio
    .load(html)('a')
    .map((_, a) => cheerio.load(a).text())
    .get();
  assert.deepEqual(order, [
    'demo_pkg-1.0rc1.tar.gz',
    'demo_pkg-1.0-py3-none-any.whl',
    'demo_pkg-1.0.tar.gz',
    'demo_pkg-1.9-py3-none-any.whl',
    'demo_pkg-1.9.tar.gz',
    'demo_pkg-1.10.tar.gz',
  ]);
});

test('provenance passes through as data-provenance; null or absent gives none', () => {
  const prov = 'https://pypi.org/integrity/demo-pkg/1.0/demo_pkg-1.0.tar.gz/provenance';
  const html = renderProjectHtml(
    page([file('demo_pkg-1.0.tar.gz', { provenance: prov }), file('demo_pkg-2.0.tar.gz', { provenance: null }), file('demo_pkg-3.0.tar.gz')]),
    BASE,
  );
  assert.match(anchorLine(html, 'demo_pkg-1.0.tar.gz'), new RegExp(` data-provenance="${prov}"`));
  assert.equal(html.match(/data-provenance/g)?.length, 1);
});

test('no data-gpg-sig (even with a signature), no tracks / alternate-locations', () => {
  const html = renderProjectHtml(page([file('demo_pkg-1.0.tar.gz', { hasSig: true })]), BASE);
  assert.doesNotMatch(html, /gpg-sig|pypi:tracks|alternate-locations/);
});

test('project status: active by default, passed through with its reason', () => {
  assert.match(renderProjectHtml(page([]), BASE), /<meta name="pypi:project-status" content="active">/);
  const html = renderProjectHtml(page([], { status: { status: 'archived', reason: 'moved to "new"' } }), BASE);
  assert.match(html, /<meta name="pypi:project-status" content="archived">/);
  assert.match(html, /<meta name="pypi:project-status-reason" content="moved to &quot;new&quot;">/);
  assert.doesNotMatch(renderProjectHtml(page([]), BASE), /project-status-reason/);
});

test('page ends with the SERIAL comment and one <br /> follows each anchor', () => {
  const html = renderProjectHtml(page([file('demo_pkg-1.0.tar.gz'), file('demo_pkg-2.0.tar.gz')], { serial: 987654 }), BASE);
  assert.ok(html.endsWith('</html>\n<!--SERIAL 987654-->\n'));
  assert.equal(html.match(/<\/a><br \/>\n/g)?.length, 2);
});

/** Reads a PyPI project page into a model page (file URL and hash kept aside for comparison). */
function pageFromPypiHtml(html: string, name: string): ProjectPage {
  const $ = cheerio.load(html);
  const files = $('a')
    .map((_, el) => {
      const a = $(el);
      const [, sha256] = /#sha256=([0-9a-f]{64})$/.exec(a.attr('href')!)!;
      const meta = a.attr('data-core-metadata');
      return file(a.text(), {
        hashes: { sha256: sha256! },
        requiresPython: a.attr('data-requires-python') ?? null,
        coreMetadata: meta ? { sha256: meta.replace(/^sha256=/, '') } : false,
      });
    })
    .get();
  return page(files, { name: normalizeName(name), displayName: name, serial: Number(/SERIAL (\d+)/.exec(html)![1]) });
}

function anchors(html: string) {
  const $ = cheerio.load(html);
  return $('a')
    .map((_, el) => {
      const { href, ...attributes } = $(el).attr()!;
      return { text: $(el).text(), fragment: new URL(href!).hash, attributes };
    })
    .get()
    .sort((a, b) => (a.text < b.text ? -1 : 1));
}

test('fixture beautifulsoup4 (api 1.4): same anchors, attributes and meta apart from the file host', () => {
  const original = fixture('simple-project.beautifulsoup4.pypi-docs-excerpt.html');
  const ours = renderProjectHtml(pageFromPypiHtml(original, 'beautifulsoup4'), BASE);
  assert.deepEqual(anchors(ours), anchors(original));
  const $o = cheerio.load(original);
  const $r = cheerio.load(ours);
  for (const selector of ['title', 'h1']) assert.equal($r(selector).text(), $o(selector).text());
  for (const meta of ['pypi:repository-version', 'pypi:project-status']) {
    assert.equal($r(`meta[name="${meta}"]`).attr('content'), $o(`meta[name="${meta}"]`).attr('content'));
  }
  assert.ok(ours.endsWith('<!--SERIAL 22406780-->\n'));
  for (const a of $r('a').toArray()) assert.ok($r(a).attr('href')!.startsWith(`${BASE}/packages/beautifulsoup4/`));
});

test('fixture qypi (real capture): same links, hashes and requires-python, same order', () => {
  const original = fixture('simple-project.qypi.pypi-capture.html');
  const ours = renderProjectHtml(pageFromPypiHtml(original, 'qypi'), BASE);
  const texts = (html: string) =>
    cheerio
      .load(html)('a')
      .map((_, a) => cheerio.load(a).text())
      .get();
  assert.deepEqual(texts(ours), texts(original));
  assert.deepEqual(anchors(ours), anchors(original));
});

test('root page, one anchor per project, normalized href, name as given, title "Simple Index"', async () => {
  const original = fixture('simple-root.pypi-capture-excerpt.html');
  const $o = cheerio.load(original);
  const projects = $o('a')
    .map((_, a) => ({ name: $o(a).text() }))
    .get();
  // A base of '' links relative to the host, as pypi.org does.
  const html = await renderRootHtml(projects, '');
  const $r = cheerio.load(html);
  assert.equal($r('title').text(), 'Simple Index');
  assert.equal($r('meta[name="pypi:repository-version"]').attr('content'), API_VERSION);
  const pairs = ($: cheerio.CheerioAPI) =>
    $('a')
      .map((_, a) => [[$(a).attr('href'), $(a).text()]])
      .get();
  assert.deepEqual(pairs($r), pairs($o));
  assert.match(html, /<a href="\/simple\/a2m-itertools\/">a2m\.itertools<\/a>/);
});

test('without a base, root links are relative to the page: the same project pages under any host and path prefix', async () => {
  const html = await renderRootHtml([{ name: 'Foo.Bar' }, { name: 'a/b' }, { name: '..' }]);
  const hrefs = cheerio
    .load(html)('a')
    .map((_, a) => a.attribs.href)
    .get();
  assert.deepEqual(hrefs, ['foo-bar/', 'a%2Fb/', '-/']);
  assert.equal(new URL(hrefs[0]!, 'http://larder.test:3142/simple/').href, 'http://larder.test:3142/simple/foo-bar/');
  assert.equal(new URL(hrefs[0]!, 'https://proxy.example/pypi/simple/?format=x').href, 'https://proxy.example/pypi/simple/foo-bar/');
  assert.equal(new URL(hrefs[1]!, 'http://h/simple/').pathname, '/simple/a%2Fb/', 'a slash in a name stays in its segment');
});

test('root page escapes names and can link absolutely under a base URL', async () => {
  const html = await renderRootHtml([{ name: 'Foo.Bar' }, { name: 'a<b' }], BASE);
  assert.match(html, new RegExp(`<a href="${BASE}/simple/foo-bar/">Foo\\.Bar</a>`));
  assert.match(html, /<a href="[^"]*\/simple\/a%3Cb\/">a&lt;b<\/a>/);
});

test('root chunks: head, anchors in batches of 1000, tail; valid with no projects', async () => {
  async function* names(n: number) {
    for (let i = 0; i < n; i++) yield { name: `pkg_${i}`, serial: i };
  }
  const chunks: string[] = [];
  for await (const chunk of renderRootHtmlChunks(names(2500))) chunks.push(chunk);
  assert.equal(chunks.length, 5);
  assert.match(chunks[0]!, /<title>Simple Index<\/title>/);
  assert.equal(chunks[1]!.match(/<a /g)?.length, 1000);
  assert.equal(chunks[3]!.match(/<a /g)?.length, 500);
  assert.equal(chunks[4], '  </body>\n</html>\n');
  const whole = chunks.join('');
  assert.equal(cheerio.load(whole)('a').length, 2500);
  assert.match(whole, /<a href="pkg-2499\/">pkg_2499<\/a>/);

  const empty = await renderRootHtml([]);
  assert.equal(cheerio.load(empty)('a').length, 0);
  assert.ok(empty.endsWith('</html>\n'));
});

test('a page with a file of unknown size advertises the same api-version in HTML as in JSON (1.0)', async () => {
  const { renderProjectJson } = await import('../../src/render/simple-json.js');
  for (const files of [[file('demo_pkg-1.0.tar.gz', { size: null }), file('demo_pkg-2.0.tar.gz')], [file('demo_pkg-2.0.tar.gz')]]) {
    const html = cheerio.load(renderProjectHtml(page(files), BASE));
    const json = JSON.parse(renderProjectJson(page(files), BASE)) as { meta: { 'api-version': string } };
    assert.equal(html('meta[name="pypi:repository-version"]').attr('content'), json.meta['api-version']);
  }
  assert.equal(
    cheerio
      .load(renderProjectHtml(page([file('demo_pkg-1.0.tar.gz', { size: null })]), BASE))('meta[name="pypi:repository-version"]')
      .attr('content'),
    '1.0',
  );
});
