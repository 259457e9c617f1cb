/**
 * The streaming parsers against what they replace: the cheerio parser for HTML pages, a whole-text parse for
 * any way the body may be cut into pieces, and compareVersions for sortVersions.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { compareVersions, sortVersions } from '../../src/model/versions.js';
import { parseJsonApi, parseJsonApiStream } from '../../src/upstream/parse-json-api.js';
import { parseSimpleHtml, parseSimpleHtmlStream, SimpleHtmlPageParser } from '../../src/upstream/parse-simple-html.js';
import { parseSimpleJson, parseSimpleJsonStream } from '../../src/upstream/parse-simple-json.js';
import { parseSimpleHtmlWithCheerio } from '../helpers/cheerio-project-page.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/spec/${name}`, import.meta.url), 'utf8');
const o = { pageUrl: 'https://idx.example/simple/foo/' };
const outcome = (parse: () => unknown) => {
  try {
    return JSON.stringify(parse());
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
};

/** Pages that stress the tokenizer; each is read as the cheerio parser read it. */
const cases: Record<string, string> = {
  script: '<script>var s = "<a href=\'x-1.tar.gz\'>";</script><a href="y-1.tar.gz">y</a>',
  style: '<style><a href="x-1.tar.gz"></style><a href="y-1.tar.gz">',
  comment: '<!-- <a href="x-1.tar.gz"> --><a href="y-1.tar.gz">',
  commentBang: '<!-- x --!><a href="y-1.tar.gz">',
  abrupt: '<!--><a href="y-1.tar.gz"><!---><a href="z-1.tar.gz">',
  bogus: '<? x <a href="q-1.tar.gz"> ><a href="y-1.tar.gz">',
  doctype: '<!DOCTYPE html "<a href=x-1.tar.gz>"><a href="y-1.tar.gz">',
  cdata: '<![CDATA[<a href="x-1.tar.gz">]]><a href="y-1.tar.gz">',
  textarea: '<textarea><a href="x-1.tar.gz"></textarea><a href="y-1.tar.gz">',
  title: '<title>Links for A &amp; B</title><a href="y-1.tar.gz">',
  titleUnclosed: '<title>Links for A<a href="y-1.tar.gz">',
  titleAttr: '<title>Links for Foo</title foo="x"><a href="y-1.tar.gz">',
  twoTitles: '<title>Links for one</title><title>Links for two</title>',
  dup: '<a href="a-1.tar.gz" href="b-1.tar.gz" data-yanked="r1" DATA-YANKED="r2">',
  upper: '<A HREF="a-1.tar.gz" Data-Requires-Python="&gt;=3">',
  unquoted: '<a href=a-1.tar.gz#sha256=AB data-yanked=why>x</a><a href=b-2.tar.gz>',
  entities: '<a href="a-1.tar.gz?x=1&copy=2&amp;y&#x41;&lt&notin;&notit;">',
  slash: '<a/href="a-1.tar.gz"><a href="b-1.tar.gz"/>',
  noSpace: '<a href="a-1.tar.gz"data-yanked="x">',
  emptyName: '<a ="x" href="a-1.tar.gz">',
  weirdName: '<a href"x"="1" href="a-1.tar.gz">',
  lt: '< a href="x-1.tar.gz"> <a href="a-1.tar.gz"> a < b <3',
  endtagAttr: '</p href="x-1.tar.gz"><a href="a-1.tar.gz">',
  baseLate: '<a href="a-1.tar.gz"><base href="https://cdn.example/x/"><base href="https://no.example/">',
  baseNoHref: '<base target="_x"><base href="/other/"><a href="a-1.tar.gz">',
  serialInScript: '<script>"<!-- SERIAL 5 -->"</script><a href="a-1.tar.gz">',
  serial: '<!--SERIAL 77--><a href="a-1.tar.gz">',
  meta: '<meta name="pypi:project-status" content="archived"><meta name="pypi:project-status" content="deprecated"><meta name="PYPI:project-status-reason" content="x">',
  metaNoContent: '<meta name="pypi:repository-version"><meta name="pypi:repository-version" content="2.0">',
  noscript: '<noscript><a href="x-1.tar.gz"></noscript><a href="a-1.tar.gz">',
  plaintext: '<a href="a-1.tar.gz"><plaintext><a href="x-1.tar.gz">',
  nested: '<a href="a-1.tar.gz"><a href="b-1.tar.gz">text</a></a>',
  crlf: '<a href="a-1.tar.gz" data-yanked="line1\r\nline2\rline3">',
  nul: '<a href="a-1.tar.gz" data-yanked="x\0y">',
  template: '<template><a href="t-1.tar.gz"></template>',
  table: '<table><tr><a href="a-1.tar.gz"></tr></table>',
  select: '<select><a href="a-1.tar.gz"></select>',
  svg: '<svg><style><a href="s-1.tar.gz"></style></svg><a href="a-1.tar.gz">',
  afterHtml: '</html><a href="a-1.tar.gz"><!-- SERIAL 9 -->',
  scriptEscape: '<script><!--<script></script><a href="x-1.tar.gz"></script>--></script><a href="a-1.tar.gz">',
  frameset: '<frameset><a href="a-1.tar.gz"></frameset>',
  iframe: '<iframe><a href="x-1.tar.gz"></iframe><a href="a-1.tar.gz">',
  bom: '\ufeff<title>Links for x</title>',
};

/** Where the streaming parser differs from cheerio on purpose (it tokenizes; it builds no tree). */
const DIFFERENT: Record<string, string> = {
  serialInScript: 'a SERIAL is read from a comment only, not from text that looks like one',
  select: 'an <a> inside <select> still counts (a browser drops it)',
  svg: 'the content of <style> inside <svg> is text here',
  scriptEscape: '`<!--<script>` inside a script does not hide its `</script>` here',
  frameset: 'an <a> inside <frameset> still counts (a browser drops it)',
};

/** Byte pieces of at most `size`, cut anywhere (a UTF-8 character too). */
async function* pieces(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('the HTML page parser against the cheerio parser it replaces', () => {
  for (const [name, html] of Object.entries(cases)) {
    if (name in DIFFERENT) continue;
    it(`agrees on ${name}`, () => {
      assert.equal(
        outcome(() => parseSimpleHtml(html, o)),
        outcome(() => parseSimpleHtmlWithCheerio(html, o)),
      );
    });
  }

  it('agrees on the captured and documented pages', () => {
    for (const [file, pageUrl] of [
      ['simple-project.beautifulsoup4.pypi-docs-excerpt.html', 'https://pypi.org/simple/beautifulsoup4/'],
      ['simple-project.qypi.pypi-capture.html', 'https://pypi.org/simple/qypi/'],
    ] as const) {
      const text = fixture(file);
      assert.deepEqual(parseSimpleHtml(text, { pageUrl }), parseSimpleHtmlWithCheerio(text, { pageUrl }), file);
    }
  });

  for (const [name, why] of Object.entries(DIFFERENT)) {
    it(`differs on ${name}: ${why}`, () => {
      assert.notEqual(
        outcome(() => parseSimpleHtml(cases[name]!, o)),
        outcome(() => parseSimpleHtmlWithCheerio(cases[name]!, o)),
      );
    });
  }
});

describe('reading in pieces gives what reading whole gives', () => {
  it('for every HTML case cut in three anywhere', () => {
    for (const [name, html] of Object.entries(cases)) {
      const whole = outcome(() => parseSimpleHtml(html, o));
      for (let a = 0; a <= html.length; a++) {
        for (let b = a; b <= html.length; b += 5) {
          const cut = outcome(() => {
            const parser = new SimpleHtmlPageParser(o);
            for (const piece of [html.slice(0, a), html.slice(a, b), html.slice(b)]) parser.push(piece);
            parser.end();
            parser.resolveLinks(Number.POSITIVE_INFINITY);
            return parser.page();
          });
          assert.equal(cut, whole, `${name} cut at ${a} and ${b}`);
        }
      }
    }
  });

  it('for the captured pages and documents, in byte pieces of any size', async () => {
    const html = fixture('simple-project.qypi.pypi-capture.html');
    const json = fixture('simple-project.markus.v1-json.pypi-capture.json');
    const api = fixture('pypi-json-project.requests.json');
    const apiOptions = { pageUrl: 'https://pypi.org/pypi/requests/json' };
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      assert.deepEqual(await parseSimpleHtmlStream(pieces(html, size), o), parseSimpleHtml(html, o), `html, ${size}`);
      assert.deepEqual(await parseSimpleJsonStream(pieces(json, size), o), parseSimpleJson(json, o), `json, ${size}`);
    }
    for (const size of [61, 1000, 65536]) {
      assert.deepEqual(await parseJsonApiStream(pieces(api, size), apiOptions), parseJsonApi(api, apiOptions), `json api, ${size}`);
    }
  });
});

describe('sortVersions', () => {
  it('orders as compareVersions does, invalid versions first', () => {
    const pool = ['1.0', '1.0.0', '1.0a1', '1.0.dev0', '1.0.post1', '1.0rc1', '1.0+local.7', '1.0+abc', '1.0+abc.1', '1!0.1', 'garbage', 'zzz'];
    const more = ['2.0b2.post3.dev4', '1.0-1', 'v1.2', '1.0a1.dev2', '1.0.post1.dev1', '0.9', '1.0+1', '1.0+1.a', '1.0+a.1', '1.0c1', '1.0pre1', '1.0.RC2'];
    const all = [...pool, ...more];
    for (let shift = 0; shift < all.length; shift++) {
      const list = [...all.slice(shift), ...all.slice(0, shift)];
      assert.deepEqual(sortVersions(list), [...list].sort(compareVersions), `starting at ${shift}`);
    }
  });
});
