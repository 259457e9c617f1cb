import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ProjectListEntry } from '../../src/model/documents.js';
import { parseRootHtml, parseRootHtmlStream, parseRootJson, parseRootJsonStream } from '../../src/upstream/parse-root.js';

const fixtures = new URL('../fixtures/spec/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, fixtures), 'utf8');

async function* pieces(text: string | Buffer, size: number): AsyncGenerator<string | Buffer> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function collect(entries: AsyncIterable<ProjectListEntry>): Promise<ProjectListEntry[]> {
  const out: ProjectListEntry[] = [];
  for await (const entry of entries) out.push(entry);
  return out;
}

const CHUNK_SIZES = [1, 2, 3, 5, 7, 13, 64, 1 << 16];

describe('parseRootHtml', () => {
  it('reads the 2018 capture: link text is the display name', () => {
    const entries = parseRootHtml(fixture('simple-root.pypi-capture-excerpt.html'));
    assert.equal(entries.length, 20);
    assert.deepEqual(entries[0], { name: 'a' });
    assert.deepEqual(
      entries.slice(9, 11).map((e) => e.name),
      ['a2d_diary', 'a2m.itertools'],
    );
    assert.equal(entries[17]!.name, 'A3MIO');
    assert.equal(entries.at(-1)!.name, 'a4t-party_contact');
    assert.ok(entries.every((e) => e.serial === undefined));
  });

  it('reads the docs excerpt and skips the comment', () => {
    assert.deepEqual(parseRootHtml(fixture('simple-root.pypi-docs-excerpt.html')), [{ name: '0' }, { name: '0-._.-._.-._.-._.-._.-._.-0' }]);
  });
});

describe('parseRootJson', () => {
  it('reads names and serials, skipping the placeholder string of the docs excerpt', () => {
    assert.deepEqual(parseRootJson(fixture('simple-root.pypi-docs-excerpt.v1-json.json')), [
      { name: '0', serial: 3075854 },
      { name: '0-._.-._.-._.-._.-._.-._.-0', serial: 1448421 },
    ]);
  });

  it('rejects garbage', () => {
    assert.throws(() => parseRootJson('<html></html>'), /root JSON is not valid JSON/);
    assert.throws(() => parseRootJson('{"meta":{}}'), /"projects" is missing or not an array/);
  });
});

describe('parseRootHtmlStream', () => {
  for (const name of ['simple-root.pypi-capture-excerpt.html', 'simple-root.pypi-docs-excerpt.html']) {
    it(`matches parseRootHtml on ${name} in any chunking`, async () => {
      const text = fixture(name);
      const expected = parseRootHtml(text);
      for (const size of CHUNK_SIZES) {
        assert.deepEqual(await collect(parseRootHtmlStream(pieces(text, size))), expected, `chunk size ${size}`);
        assert.deepEqual(await collect(parseRootHtmlStream(pieces(Buffer.from(text), size))), expected, `bytes, size ${size}`);
      }
    });
  }

  it('handles entities (every named one, as a browser),  UTF-8 split across byte chunks, attributes, inner tags, comments and scripts', async () => {
    const html = [
      '<!DOCTYPE html><html><head><title>Simple index</title>',
      '<script>var s = "<a href=\'/no/\'>no</a>";</script><style>a > b {}</style></head><body>',
      '<!-- <a href="/simple/commented/">commented</a> -->',
      '<A HREF="/simple/a-b/" title="x > y">A&amp;B</A>',
      "<a data-x='1' href=/simple/caf/>café</a>",
      '<a href="/simple/num/"> <span>&#78;&#x75;m</span> </a>',
      '<a href="/simple/from-href/"></a>',
      '<a href="/simple/named/">caf&eacute;&hellip;</a>',
      '<a href="/simple/unclosed/">unclosed<a href="/simple/next/">next</a>',
      '<a href="/simple/last/">last',
    ].join('\n');
    const expected = [
      { name: 'A&B' },
      { name: 'café' },
      { name: 'Num' },
      { name: 'from-href' },
      { name: 'café…' },
      { name: 'unclosed' },
      { name: 'next' },
      { name: 'last' },
    ];
    for (const size of CHUNK_SIZES) {
      assert.deepEqual(await collect(parseRootHtmlStream(pieces(Buffer.from(html), size))), expected, `size ${size}`);
    }
    assert.deepEqual(parseRootHtml(html), expected, 'the cheerio parser agrees');
  });

  it('gives up on an anchor that never ends instead of buffering without bound', async () => {
    async function* endless() {
      yield '<a href="/simple/x/">';
      for (let i = 0; i < 40; i++) yield 'x'.repeat(64 * 1024);
    }
    await assert.rejects(collect(parseRootHtmlStream(endless())), /runs on for more than/);
  });
});

describe('parseRootJsonStream', () => {
  it('matches parseRootJson on the docs excerpt in any chunking', async () => {
    const text = fixture('simple-root.pypi-docs-excerpt.v1-json.json');
    const expected = parseRootJson(text);
    for (const size of CHUNK_SIZES) {
      assert.deepEqual(await collect(parseRootJsonStream(pieces(text, size))), expected, `chunk size ${size}`);
    }
  });

  it('copes with key order, whitespace, escapes, nesting and UTF-8 split across chunks', async () => {
    const text =
      ' \n{ "projects" :\t[ {"extra": {"a": ["]", "}", ",", "\\"["]}, "name" : "na\\"me\\\\"} ,\r\n' +
      '{"_last-serial":5,"name":"\\u00e9t\\u00E9"},{"name":"日本"} , "placeholder", 3, null, {"nom": "x"} ],\n' +
      ' "meta": {"api-version": "1.4", "_last-serial": 9, "projects": "not these"}, "pro\\u006aects2": [1] }  \n';
    const expected = [{ name: 'na"me\\' }, { name: 'été', serial: 5 }, { name: '日本' }];
    assert.deepEqual(parseRootJson(text), expected, 'the JSON.parse version agrees');
    for (const size of CHUNK_SIZES) {
      assert.deepEqual(await collect(parseRootJsonStream(pieces(Buffer.from(text), size))), expected, `size ${size}`);
    }
  });

  it('rejects garbage', async () => {
    const run = (text: string) => collect(parseRootJsonStream(pieces(text, 3)));
    await assert.rejects(run(''), /empty document/);
    await assert.rejects(run('<!DOCTYPE html>'), /expected a JSON object/);
    await assert.rejects(run('[{"name":"a"}]'), /expected a JSON object/);
    await assert.rejects(run('{"meta":{},"projects":[{"name":"a"}'), /ends early/);
    await assert.rejects(run('{"meta":{}}'), /"projects" is missing/);
    await assert.rejects(run('{"projects":{"name":"a"}}'), /"projects" is not an array/);
    await assert.rejects(run('{"projects":[{"name":"a"]}'), /mismatched/);
    await assert.rejects(run('{"projects":[{"name":a}]}'), /bad entry in "projects"/);
    await assert.rejects(run('{"projects":[]} {}'), /after the end of the document/);
  });

  it('yields entries before the document ends', async () => {
    const seen: string[] = [];
    async function* slow() {
      yield '{"meta":{"api-version":"1.4"},"projects":[{"name":"a"},';
      assert.deepEqual(seen, ['a'], 'the first entry came out before the rest was sent');
      yield '{"name":"b"}]}';
    }
    for await (const entry of parseRootJsonStream(slow())) seen.push(entry.name);
    assert.deepEqual(seen, ['a', 'b']);
  });
});
