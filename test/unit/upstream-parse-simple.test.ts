import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { FileEntry, ProjectPage } from '../../src/model/documents.js';
import { parseProjectPage } from '../../src/upstream/parse-project-page.js';
import { parseSimpleHtml } from '../../src/upstream/parse-simple-html.js';
import { parseSimpleJson } from '../../src/upstream/parse-simple-json.js';

const fixtures = new URL('../fixtures/spec/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, fixtures), 'utf8');

/** The docs excerpt is not JSON: it lacks a comma and has "...More files..." placeholders. */
function cleanedBs4Json(): string {
  const doc = fixture('simple-project.beautifulsoup4.pypi-docs-excerpt.v1-json.txt')
    .replace(/\}\n(\s*)"versions"/, '},\n$1"versions"')
    .replace(/\s*"\.\.\.More (files|versions)\.\.\.",/g, '');
  return doc;
}

const PYPI = 'https://pypi.org/simple/';
const byName = (page: ProjectPage, filename: string): FileEntry => {
  const file = page.files.find((f) => f.filename === filename);
  assert.ok(file, `no file ${filename}`);
  return file;
};

describe('parseSimpleHtml', () => {
  it('reads the beautifulsoup4 page of PyPI’s docs', () => {
    const page = parseSimpleHtml(fixture('simple-project.beautifulsoup4.pypi-docs-excerpt.html'), {
      pageUrl: `${PYPI}beautifulsoup4/`,
      headerSerial: 2857110,
    });
    assert.equal(page.name, 'beautifulsoup4');
    assert.equal(page.displayName, 'beautifulsoup4');
    assert.equal(page.serial, 22406780, 'the <!--SERIAL--> comment wins over the header');
    assert.equal(page.origin, 'upstream');
    assert.deepEqual(page.status, { status: 'active' });
    assert.deepEqual(page.versions, ['4.0.1', '4.0.2', '4.13.0b2']);
    assert.deepEqual(
      page.files.map((f) => f.filename),
      ['beautifulsoup4-4.0.1.tar.gz', 'beautifulsoup4-4.0.2.tar.gz', 'beautifulsoup4-4.13.0b2-py3-none-any.whl', 'beautifulsoup4-4.13.0b2.tar.gz'],
    );
    assert.deepEqual(byName(page, 'beautifulsoup4-4.13.0b2-py3-none-any.whl'), {
      filename: 'beautifulsoup4-4.13.0b2-py3-none-any.whl',
      version: '4.13.0b2',
      sourceUrl:
        'https://files.pythonhosted.org/packages/14/7e/e4313dad823c3a0751c99b9bc0182b1dd19aea164ce7445e9a70429b9e92/beautifulsoup4-4.13.0b2-py3-none-any.whl',
      hashes: { sha256: '7e05ad0b6c26108d9990e2235e8a9b4e2c03ead6f391ceb60347f8ebea6b80ba' },
      requiresPython: '>=3.6.0',
      yanked: false,
      yankedReason: null,
      coreMetadata: { sha256: 'd0aa787c2b55e5b0b3aff66f137cf33341c5e781cb87b4dc184cbb25c7ac0ab5' },
      size: null,
      uploadTime: null,
      provenance: null,
      hasSig: false,
    });
    const old = byName(page, 'beautifulsoup4-4.0.1.tar.gz');
    assert.equal(old.requiresPython, null);
    assert.equal(old.coreMetadata, false);
  });

  it('reads the qypi capture (no API version, SERIAL comment after </html>)', () => {
    const page = parseSimpleHtml(fixture('simple-project.qypi.pypi-capture.html'), { pageUrl: `${PYPI}qypi/` });
    assert.equal(page.name, 'qypi');
    assert.equal(page.serial, 2875636);
    assert.equal(page.status, undefined);
    assert.equal(page.files.length, 12);
    assert.deepEqual(page.versions, ['0.1.0', '0.1.0.post1', '0.2.0', '0.3.0', '0.4.0', '0.4.1']);
    assert.ok(page.files.every((f) => f.requiresPython === '~=3.4' && !f.yanked && f.coreMetadata === false));
    assert.deepEqual(byName(page, 'qypi-0.4.1.tar.gz').hashes, {
      sha256: '5f69adbf25e8369d25c31e41912ed0e6be429beb62faf4fc424aa667c561f657',
    });
  });

  it('resolves relative links against the page URL, or the first <base href>', () => {
    const anchors = `
      <a href="../../packages/foo-1.0.tar.gz#sha256=AB12">foo-1.0.tar.gz</a>
      <a href="/abs/foo-1.1.tar.gz">foo-1.1.tar.gz</a>`;
    const plain = parseSimpleHtml(`<html><body>${anchors}</body></html>`, {
      pageUrl: 'https://idx.example/simple/foo/',
    });
    assert.deepEqual(
      plain.files.map((f) => f.sourceUrl),
      ['https://idx.example/packages/foo-1.0.tar.gz', 'https://idx.example/abs/foo-1.1.tar.gz'],
    );
    assert.deepEqual(plain.files[0]!.hashes, { sha256: 'ab12' });

    const based = parseSimpleHtml(
      `<html><head><base href="https://cdn.example/x/y/"><base href="https://wrong.example/"></head><body>${anchors}</body></html>`,
      { pageUrl: 'https://idx.example/simple/foo/' },
    );
    assert.deepEqual(
      based.files.map((f) => f.sourceUrl),
      ['https://cdn.example/packages/foo-1.0.tar.gz', 'https://cdn.example/abs/foo-1.1.tar.gz'],
    );
  });

  it('reads every per-file attribute', () => {
    const html = `<!DOCTYPE html><html><head>
      <meta name="pypi:repository-version" content="1.4">
      <meta name="pypi:project-status" content="deprecated">
      <meta name="pypi:project-status-reason" content="use bar &amp; baz">
      <title>Links for Foo.Bar</title></head><body>
      <a href="f/Foo.Bar-1.0.tar.gz#sha256=AA&amp;md5=BB" data-yanked="" data-requires-python="&gt;=3.8,&lt;4">x</a>
      <a href="f/foo_bar-1.1.tar.gz" data-yanked="broken &quot;badly&quot;">x</a>
      <a href="f/foo_bar-1.2.tar.gz" data-yanked>x</a>
      <a href="f/foo_bar-1.3-py3-none-any.whl" data-core-metadata="true" data-dist-info-metadata="sha256=cc">x</a>
      <a href="f/foo_bar-1.4-py3-none-any.whl" data-dist-info-metadata="SHA256=DD">x</a>
      <a href="f/foo_bar-1.5-py3-none-any.whl" data-core-metadata="false">x</a>
      <a href="f/foo_bar-1.6-py3-none-any.whl" data-core-metadata="yes">x</a>
      <a href="f/foo_bar-1.7%2Bcu121-py3-none-any.whl" data-gpg-sig="true" data-provenance="https://p.example/prov">x</a>
      <a href="f/foo_bar-1.8.tar.gz" data-gpg-sig="false" data-requires-python="">x</a>
      <a href="../">parent</a> <a href="mailto:someone@example.com">mail</a>
      </body></html>`;
    const page = parseSimpleHtml(html, { pageUrl: 'https://idx.example/simple/foo-bar/', headerSerial: 7 });
    assert.equal(page.name, 'foo-bar');
    assert.equal(page.displayName, 'Foo.Bar');
    assert.equal(page.serial, 7, 'no SERIAL comment: the header serial');
    assert.deepEqual(page.status, { status: 'deprecated', reason: 'use bar & baz' });
    const [f0, f1, f2, f3, f4, f5, f6, f7, f8] = page.files;
    assert.equal(page.files.length, 9, 'links that name no file are skipped');
    assert.deepEqual(f0!.hashes, { sha256: 'aa', md5: 'bb' });
    assert.equal(f0!.sourceUrl, 'https://idx.example/simple/foo-bar/f/Foo.Bar-1.0.tar.gz');
    assert.equal(f0!.requiresPython, '>=3.8,<4');
    assert.deepEqual([f0!.yanked, f0!.yankedReason], [true, null]);
    assert.deepEqual([f1!.yanked, f1!.yankedReason], [true, 'broken "badly"']);
    assert.deepEqual([f2!.yanked, f2!.yankedReason], [true, null]);
    assert.deepEqual([f3!.yanked, f3!.yankedReason], [false, null]);
    assert.equal(f3!.coreMetadata, true, 'data-core-metadata wins over data-dist-info-metadata');
    assert.deepEqual(f4!.coreMetadata, { sha256: 'dd' });
    assert.equal(f5!.coreMetadata, false);
    assert.equal(f6!.coreMetadata, true, 'like pip: a value without "=" means present, hash unknown');
    assert.equal(f7!.filename, 'foo_bar-1.7+cu121-py3-none-any.whl');
    assert.equal(f7!.version, '1.7+cu121');
    assert.equal(f7!.hasSig, true);
    assert.equal(f7!.provenance, 'https://p.example/prov');
    assert.equal(f8!.hasSig, false);
    assert.equal(f8!.requiresPython, null);
    assert.deepEqual(page.versions, ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7+cu121', '1.8']);
  });

  it('falls back to the requested name, then to the URL, when there is no title', () => {
    const body = '<html><body><a href="x-1.0.tar.gz">x-1.0.tar.gz</a></body></html>';
    assert.equal(parseSimpleHtml(body, { pageUrl: `${PYPI}x/`, projectName: 'X' }).displayName, 'X');
    assert.equal(parseSimpleHtml(body, { pageUrl: `${PYPI}x/` }).displayName, 'x');
    assert.equal(parseSimpleHtml(body, { pageUrl: `${PYPI}x/` }).serial, 0);
  });

  it('refuses a major repository version it does not know', () => {
    const html = '<html><head><meta name="pypi:repository-version" content="2.0"></head><body></body></html>';
    assert.throws(() => parseSimpleHtml(html, { pageUrl: `${PYPI}x/` }), /unsupported repository API version 2\.0/);
  });
});

describe('parseSimpleJson', () => {
  it('reads the beautifulsoup4 page of PyPI’s docs', () => {
    const page = parseSimpleJson(cleanedBs4Json(), { pageUrl: `${PYPI}beautifulsoup4/`, headerSerial: 1 });
    assert.equal(page.name, 'beautifulsoup4');
    assert.equal(page.serial, 22406780, 'meta._last-serial wins over the header');
    assert.deepEqual(page.status, { status: 'active' });
    assert.deepEqual(page.versions, ['4.0.1', '4.0.2', '4.12.3', '4.13.0b2']);
    assert.equal(page.files.length, 6);
    const whl = byName(page, 'beautifulsoup4-4.12.3-py3-none-any.whl');
    assert.equal(whl.size, 147925);
    assert.equal(whl.uploadTime, '2024-01-17T16:53:12.779164Z');
    assert.deepEqual(whl.coreMetadata, { sha256: '524392d64a088e56a4232f50d6edb208dc03105394652acb72c6d5fa64c89f3e' });
    assert.equal(whl.requiresPython, '>=3.6.0');
  });

  it('agrees with the HTML form of the same page wherever both carry the data', () => {
    const options = { pageUrl: `${PYPI}beautifulsoup4/` };
    const html = parseSimpleHtml(fixture('simple-project.beautifulsoup4.pypi-docs-excerpt.html'), options);
    const json = parseSimpleJson(cleanedBs4Json(), options);
    for (const key of ['name', 'displayName', 'serial', 'status', 'origin'] as const) {
      assert.deepEqual(html[key], json[key], key);
    }
    assert.equal(html.files.length, 4);
    for (const htmlFile of html.files) {
      const jsonFile = byName(json, htmlFile.filename);
      assert.deepEqual({ ...jsonFile, size: null, uploadTime: null }, htmlFile, htmlFile.filename);
    }
  });

  it('reads the markus capture (api 1.1, requires-python "")', () => {
    const page = parseSimpleJson(fixture('simple-project.markus.v1-json.pypi-capture.json'), { pageUrl: `${PYPI}markus/` });
    assert.equal(page.serial, 17515287);
    assert.equal(page.files.length, 30);
    assert.equal(page.versions.length, 15);
    assert.equal(page.status, undefined);
    assert.deepEqual([...new Set(page.files.map((f) => f.requiresPython))], [null, '>=3.7'], '"" (files before 4.0.0) means no Requires-Python');
    assert.equal(byName(page, 'markus-3.0.0.tar.gz').requiresPython, null);
    assert.equal(byName(page, 'markus-4.0.0.tar.gz').requiresPython, '>=3.7');
    assert.ok(page.files.every((f) => f.coreMetadata === false && f.size !== null && f.uploadTime !== null));
    const first = page.files[0]!;
    assert.deepEqual(first, {
      filename: 'markus-0.1-py2.py3-none-any.whl',
      version: '0.1',
      sourceUrl: 'https://files.pythonhosted.org/packages/88/7d/f81b083dff28ba812ddcfb2a201d58e22da746359bba8a933627ad55d64f/markus-0.1-py2.py3-none-any.whl',
      hashes: { sha256: 'f7552c1fcfdb87f1713c1f9d3302b0c8dd52b266e28e63b69c96190dd8d2b631' },
      requiresPython: null,
      yanked: false,
      yankedReason: null,
      coreMetadata: false,
      size: 13713,
      uploadTime: '2017-04-10T22:36:43.081282Z',
      provenance: null,
      hasSig: false,
    });
  });

  it('reads the attrs page (api 1.4, md5 + sha256, provenance null)', () => {
    const page = parseSimpleJson(fixture('simple-project.attrs.v1-json.poetry-generated.json'), { pageUrl: `${PYPI}attrs/` });
    assert.equal(page.serial, 0, 'the document says 0 (poetry zeroes it); the body still wins');
    assert.deepEqual(page.versions, ['17.4.0']);
    const [whl, sdist] = page.files;
    assert.deepEqual(whl!.hashes, {
      md5: '7fe37931797b16c7fa158017457a9ea9',
      sha256: '1fbfc10ebc8c876dcbab17f016b80ae1a4f0c1413461a695871427960795beb4',
    });
    assert.deepEqual(whl!.coreMetadata, { sha256: 'a1828f9b7a019e96302759189410f380814be1dd57a201a56c078f9e8e11a2e5' });
    assert.equal(sdist!.coreMetadata, false);
    assert.equal(whl!.provenance, null);
  });

  it('reads yanked: true and yanked: "reason" (api 1.0, no versions, no serial)', () => {
    const text = fixture('simple-project.yanked.v1-json.pypi-capture.json');
    const page = parseSimpleJson(text, { pageUrl: `${PYPI}yanked/`, headerSerial: 42 });
    assert.equal(page.serial, 42, 'no meta._last-serial: the header serial');
    assert.equal(parseSimpleJson(text, { pageUrl: `${PYPI}yanked/` }).serial, 0);
    assert.deepEqual(page.versions, ['0.0.0'], 'versions come from the files');
    const [whl, sdist] = page.files;
    assert.deepEqual([whl!.yanked, whl!.yankedReason], [true, null]);
    assert.deepEqual([sdist!.yanked, sdist!.yankedReason], [true, 'not good']);
    assert.equal(whl!.size, null);
    assert.equal(whl!.uploadTime, null);
  });

  it('resolves relative URLs, drops fragments, and honours the legacy metadata keys in order', () => {
    const doc = {
      meta: { 'api-version': '1.1' },
      name: 'Foo',
      files: [
        { filename: 'foo-1.0.tar.gz', url: '../../files/foo-1.0.tar.gz#sha256=00', hashes: { SHA256: 'AB' }, 'gpg-sig': true },
        {
          filename: 'foo-1.0-py3-none-any.whl',
          url: '/f/foo-1.0-py3-none-any.whl',
          hashes: {},
          'core-metadata': false,
          'data-dist-info-metadata': { sha256: 'cc' },
        },
        {
          filename: 'foo-1.1-py3-none-any.whl',
          url: 'https://cdn.example/w',
          hashes: {},
          'data-dist-info-metadata': { sha256: 'cc' },
          'dist-info-metadata': true,
        },
        { filename: 'foo-1.2-py3-none-any.whl', url: 'https://cdn.example/w', hashes: {}, 'dist-info-metadata': {} },
        { filename: 'foo-1.3.tar.gz', url: 'https://cdn.example/s', hashes: {}, yanked: '' },
      ],
      versions: ['1.0', '1.1', '1.2', '1.3', '2.0'],
    };
    const page = parseSimpleJson(JSON.stringify(doc), { pageUrl: 'https://idx.example/simple/foo/' });
    assert.equal(page.displayName, 'Foo');
    assert.deepEqual(page.versions, ['1.0', '1.1', '1.2', '1.3', '2.0'], 'versions without files are kept');
    const [a, b, c, d, e] = page.files;
    assert.equal(a!.sourceUrl, 'https://idx.example/files/foo-1.0.tar.gz');
    assert.deepEqual(a!.hashes, { sha256: 'ab' });
    assert.equal(a!.hasSig, true);
    assert.equal(b!.sourceUrl, 'https://idx.example/f/foo-1.0-py3-none-any.whl');
    assert.equal(b!.coreMetadata, false, 'core-metadata wins, even when false');
    assert.deepEqual(c!.coreMetadata, { sha256: 'cc' }, 'data-dist-info-metadata before dist-info-metadata');
    assert.equal(d!.coreMetadata, true, 'an empty hash dict still says the file exists');
    assert.equal(e!.yanked, false, 'an empty string is not a reason');
  });

  it('rejects garbage with a clear message', () => {
    const opts = { pageUrl: `${PYPI}x/` };
    assert.throws(() => parseSimpleJson('<html>', opts), /simple JSON page .* is not valid JSON/);
    // Read as it streams, the first fault met is reported: here a placeholder entry comes before the missing comma.
    assert.throws(() => parseSimpleJson(fixture('simple-project.beautifulsoup4.pypi-docs-excerpt.v1-json.txt'), opts), /files\[2\]: expected an object/);
    assert.throws(() => parseSimpleJson('[]', opts), /expected a JSON object/);
    assert.throws(() => parseSimpleJson('{"name":"x"}', opts), /"files" is missing or not an array/);
    assert.throws(() => parseSimpleJson('{"files":{}}', opts), /"files" is missing or not an array/);
    assert.throws(() => parseSimpleJson('{"files":[{"filename":3,"url":"u"}]}', opts), /files\[0\]: "filename" must be a non-empty string/);
    assert.throws(() => parseSimpleJson('{"files":["...More files..."]}', opts), /files\[0\]: expected an object/);
    assert.throws(() => parseSimpleJson('{"files":[{"filename":"x-1.tar.gz"}]}', opts), /"url" must be a string/);
    assert.throws(() => parseSimpleJson('{"meta":{"api-version":"2.0"},"files":[]}', opts), /unsupported repository API version 2\.0/);
  });
});

describe('parseProjectPage', () => {
  const html = fixture('simple-project.qypi.pypi-capture.html');
  const json = fixture('simple-project.markus.v1-json.pypi-capture.json');
  const opts = { pageUrl: `${PYPI}p/` };

  it('dispatches on the media type, ignoring parameters and case', () => {
    assert.equal(parseProjectPage(json, 'application/vnd.pypi.simple.v1+json', opts).files.length, 30);
    assert.equal(parseProjectPage(json, 'Application/VND.pypi.simple.v1+json; charset=utf-8', opts).files.length, 30);
    assert.equal(parseProjectPage(html, 'text/html; charset=utf-8', opts).files.length, 12);
    assert.equal(parseProjectPage(html, 'application/vnd.pypi.simple.v1+html', opts).files.length, 12);
  });

  it('refuses other content types', () => {
    assert.throws(() => parseProjectPage(json, 'application/json', opts), /unsupported Content-Type "application\/json"/);
    assert.throws(() => parseProjectPage('404 Not Found', 'text/plain', opts), /unsupported Content-Type/);
    assert.throws(() => parseProjectPage(json, '', opts), /unsupported Content-Type/);
  });
});
