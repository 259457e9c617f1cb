/**
 * The limits on upstream documents (content-limits.ts, docs/security.md): a document at each limit is read,
 * one past it is refused with a message naming the limit, and an endless value is refused once it passes
 * the limit, holding no more than the limit and one piece.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_ATTRIBUTES_PER_TAG,
  MAX_JSON_DEPTH,
  MAX_JSON_ITEM_CHARS,
  MAX_JSON_OBJECT_KEYS,
  MAX_JSON_STRING_CHARS,
  MAX_LINKS_PER_PAGE,
  MAX_TAG_CHARS,
  MAX_VERSIONS_PER_PAGE,
} from '../../src/upstream/content-limits.js';
import { parseJsonApi } from '../../src/upstream/parse-json-api.js';
import { parseSimpleHtml, SimpleHtmlPageParser } from '../../src/upstream/parse-simple-html.js';
import { parseSimpleJson, SimpleJsonPageParser } from '../../src/upstream/parse-simple-json.js';
import { MAX_STEP_CHARS } from '../../src/upstream/text-chunks.js';

const opts = { pageUrl: 'https://idx.example/simple/foo/' };
const link = (attrs: string) => `<html><body><a href="foo-1.0.tar.gz" ${attrs}>foo</a></body></html>`;

/**
 * Pushes `start`, then pieces of `char` until the parser refuses with `refusal` (1000 pieces would be a value
 * of 65 MB and more; it should be refused within the first few). Returns how many pieces it took.
 */
function piecesUntilRefused(parser: { push(text: string): void }, start: string, char: string, refusal: RegExp): number {
  let pushed = 0;
  assert.throws(() => {
    parser.push(start);
    for (pushed = 1; pushed <= 1000; pushed++) parser.push(char.repeat(MAX_STEP_CHARS));
  }, refusal);
  return pushed;
}

describe('HTML project page limits', () => {
  it(`reads a tag with ${MAX_ATTRIBUTES_PER_TAG} attributes and refuses one more`, () => {
    const attrs = (n: number) => Array.from({ length: n - 1 }, (_, i) => `data-x${i}="${i}"`).join(' ');
    assert.equal(parseSimpleHtml(link(attrs(MAX_ATTRIBUTES_PER_TAG)), opts).files.length, 1);
    assert.throws(
      () => parseSimpleHtml(link(attrs(MAX_ATTRIBUTES_PER_TAG + 1)), opts),
      /simple HTML page https:\/\/idx\.example\/simple\/foo\/: a <a> tag has more than 64 attributes \(larder's limit\)/,
    );
  });

  it('refuses 40,000 attributes (the quadratic duplicate check of old) by the count, at the 65th', () => {
    const parser = new SimpleHtmlPageParser(opts);
    const attrs = Array.from({ length: 40_000 }, () => ' x=1').join('');
    assert.throws(() => parser.push(`<a href="foo-1.0.tar.gz"${attrs}>`), /more than 64 attributes/);
  });

  it('keeps the first of repeated attributes', () => {
    const page = parseSimpleHtml(link('data-yanked="first" DATA-YANKED="second" href="other-2.0.tar.gz"'), opts);
    assert.equal(page.files[0]!.filename, 'foo-1.0.tar.gz');
    assert.equal(page.files[0]!.yankedReason, 'first');
  });

  it(`reads an attribute of ${MAX_ATTRIBUTE_CHARS} characters and refuses one more`, () => {
    const at = parseSimpleHtml(link(`data-yanked="${'y'.repeat(MAX_ATTRIBUTE_CHARS)}"`), opts);
    assert.equal(at.files[0]!.yankedReason!.length, MAX_ATTRIBUTE_CHARS);
    assert.throws(() => parseSimpleHtml(link(`data-yanked="${'y'.repeat(MAX_ATTRIBUTE_CHARS + 1)}"`), opts), /longer than 65536 characters/);
  });

  it('refuses an endless attribute value once past the limit, holding at most the limit and one piece', () => {
    const refusedAfter = new SimpleHtmlPageParser(opts);
    const pushed = piecesUntilRefused(refusedAfter, '<a data-yanked="', 'y', /longer than 65536 characters/);
    assert.ok(pushed * MAX_STEP_CHARS <= MAX_ATTRIBUTE_CHARS + 2 * MAX_STEP_CHARS, `refused after ${pushed} pieces`);
    assert.ok(refusedAfter.heldChars <= MAX_ATTRIBUTE_CHARS + MAX_STEP_CHARS + 'data-yanked'.length + 'a'.length);
  });

  it(`reads a tag of ${MAX_TAG_CHARS} characters and refuses one more, endless attribute names included`, () => {
    const head = '<a href="foo-1.0.tar.gz"';
    const fill = (chars: number) => {
      const parts: string[] = [];
      let left = chars - head.length - 1;
      for (let i = 0; left > 0; i++) {
        const value = Math.min(left - ` d${i}=""`.length, 60_000);
        parts.push(` d${i}="${'v'.repeat(Math.max(0, value))}"`);
        left -= parts.at(-1)!.length;
      }
      return `${head}${parts.join('')}>`;
    };
    const atCap = fill(MAX_TAG_CHARS);
    assert.equal(atCap.length, MAX_TAG_CHARS);
    assert.equal(parseSimpleHtml(atCap, opts).files.length, 1);
    assert.throws(() => parseSimpleHtml(fill(MAX_TAG_CHARS + 1), opts), /a <a> tag is longer than 262144 characters/);

    const pushed = piecesUntilRefused(new SimpleHtmlPageParser(opts), '<a ', 'n', /tag is longer than 262144 characters/);
    assert.ok(pushed * MAX_STEP_CHARS <= MAX_TAG_CHARS + MAX_STEP_CHARS, `refused after ${pushed} pieces`);
  });

  it(`reads ${MAX_LINKS_PER_PAGE} links and refuses one more`, () => {
    const page = (n: number) => `<html><body>${'<a href=f>f</a>\n'.repeat(n)}</body></html>`;
    assert.equal(parseSimpleHtml(page(MAX_LINKS_PER_PAGE), opts).files.length, MAX_LINKS_PER_PAGE);
    assert.throws(() => parseSimpleHtml(page(MAX_LINKS_PER_PAGE + 1), opts), /more than 200000 links \(larder's limit\)/);
  });

  it(`reads ${MAX_VERSIONS_PER_PAGE} versions and refuses one more`, () => {
    const page = (n: number) => Array.from({ length: n }, (_, i) => `<a href="foo-${i}.tar.gz">x</a>`).join('\n');
    assert.equal(parseSimpleHtml(page(MAX_VERSIONS_PER_PAGE), opts).versions.length, MAX_VERSIONS_PER_PAGE);
    assert.throws(() => parseSimpleHtml(page(MAX_VERSIONS_PER_PAGE + 1), opts), new RegExp(`more than ${MAX_VERSIONS_PER_PAGE} versions`));
  });

  it('bounds the <title>; comments too long to be a SERIAL are skipped, not refused', () => {
    const titled = (n: number) => `<title>Links for ${'t'.repeat(n - 'Links for '.length)}</title>`;
    assert.equal(parseSimpleHtml(titled(MAX_ATTRIBUTE_CHARS), opts).displayName.length, MAX_ATTRIBUTE_CHARS - 'Links for '.length);
    assert.throws(() => parseSimpleHtml(titled(MAX_ATTRIBUTE_CHARS + 1), opts), /<title> is longer than 65536 characters/);
    const padded = `<!-- SERIAL 5 ${' '.repeat(2000)}--><a href="foo-1.0.tar.gz">x</a>`;
    assert.equal(parseSimpleHtml(padded, { ...opts, headerSerial: 9 }).serial, 9);
    assert.equal(parseSimpleHtml('<!-- SERIAL 5 -->', { ...opts, headerSerial: 9 }).serial, 5);
  });
});

describe('JSON limits', () => {
  const file = (extra = '') => `{"filename":"foo-1.0.tar.gz","url":"foo-1.0.tar.gz"${extra}}`;
  const page = (files: string[]) => `{"meta":{"api-version":"1.1"},"name":"foo","files":[${files.join(',')}]}`;

  it(`reads values nested ${MAX_JSON_DEPTH} deep and refuses one more`, () => {
    // The page object, `files` and the file entry are three levels.
    const nested = (depth: number) => page([file(`,"x":${'['.repeat(depth - 3)}${']'.repeat(depth - 3)}`)]);
    assert.equal(parseSimpleJson(nested(MAX_JSON_DEPTH), opts).files.length, 1);
    assert.throws(() => parseSimpleJson(nested(MAX_JSON_DEPTH + 1), opts), /nest more than 32 deep/);
    assert.throws(() => parseSimpleJson('['.repeat(1_000_000), opts), /nest more than 32 deep|expected a JSON object/);
  });

  it(`reads an object of ${MAX_JSON_OBJECT_KEYS} keys and refuses one more`, () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',');
    assert.equal(parseSimpleJson(page([file(`,"hashes":{${keys(MAX_JSON_OBJECT_KEYS)}}`)]), opts).files.length, 1);
    assert.throws(() => parseSimpleJson(page([file(`,"hashes":{${keys(MAX_JSON_OBJECT_KEYS + 1)}}`)]), opts), /at \.files\[0\] has more than 1000 keys/);
  });

  it(`reads a file entry of ${MAX_JSON_ITEM_CHARS} characters and refuses one more`, () => {
    const sized = (chars: number) => {
      const bare = file(',"yanked":""');
      return file(`,"yanked":"${'y'.repeat(chars - bare.length)}"`);
    };
    assert.equal(sized(MAX_JSON_ITEM_CHARS).length, MAX_JSON_ITEM_CHARS);
    assert.equal(parseSimpleJson(page([sized(MAX_JSON_ITEM_CHARS)]), opts).files[0]!.yanked, true);
    assert.throws(() => parseSimpleJson(page([sized(MAX_JSON_ITEM_CHARS + 1)]), opts), /value at \.files\[0\] is longer than 1048576 characters/);
  });

  it('refuses an endless string once past the limit, holding at most the limit and one piece', () => {
    const parser = new SimpleJsonPageParser(opts);
    const pushed = piecesUntilRefused(parser, '{"name":"', 'n', /value at \.name is longer than 16777216 characters/);
    assert.ok(pushed * MAX_STEP_CHARS <= MAX_JSON_STRING_CHARS + MAX_STEP_CHARS, `refused after ${pushed} pieces`);
    assert.ok(parser.heldChars <= MAX_JSON_STRING_CHARS + MAX_STEP_CHARS);
  });

  it('skips values it does not use without holding them', () => {
    const parser = new SimpleJsonPageParser(opts);
    parser.push('{"files":[],"alternate-locations":["');
    for (let i = 0; i < 40; i++) parser.push('a'.repeat(MAX_STEP_CHARS));
    assert.equal(parser.heldChars, 0);
    parser.push('"]}');
    assert.deepEqual(parser.page().files, []);
  });

  it(`reads ${MAX_LINKS_PER_PAGE} files and refuses one more`, () => {
    const many = (n: number) => `{"files":[${Array(n).fill('{"filename":"f","url":"f"}').join(',')}]}`;
    assert.equal(parseSimpleJson(many(MAX_LINKS_PER_PAGE), opts).files.length, MAX_LINKS_PER_PAGE);
    assert.throws(() => parseSimpleJson(many(MAX_LINKS_PER_PAGE + 1), opts), /more than 200000 files/);
  });

  it(`reads a JSON API document of ${MAX_VERSIONS_PER_PAGE} releases and refuses one more; info's keys are bounded`, () => {
    const doc = (n: number, infoKeys = '') =>
      `{"info":{"name":"foo","version":"0"${infoKeys}},"releases":{${Array.from({ length: n }, (_, i) => `"${i}":[]`).join(',')}}}`;
    const o = { pageUrl: 'https://idx.example/pypi/foo/json' };
    assert.equal(parseJsonApi(doc(MAX_VERSIONS_PER_PAGE), o).releases.length, MAX_VERSIONS_PER_PAGE);
    assert.throws(() => parseJsonApi(doc(MAX_VERSIONS_PER_PAGE + 1), o), new RegExp(`more than ${MAX_VERSIONS_PER_PAGE} releases`));
    const keys = Array.from({ length: MAX_JSON_OBJECT_KEYS - 2 }, (_, i) => `,"k${i}":0`).join(''); // with name and version
    assert.equal(parseJsonApi(doc(1, keys), o).displayName, 'foo');
    assert.throws(() => parseJsonApi(doc(1, `${keys},"one-more":0`), o), /"info" has more than 1000 keys/);
  });
});
