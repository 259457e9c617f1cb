/**
 * pypi.org-sized project lists (about 600,000 names; docs/upstream.md, "Bounds"): the parsers stream them,
 * and the fake upstream serves one. Slow tier: each builds and reads tens of megabytes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { ProjectListEntry } from '../../src/model/documents.js';
import { parseRootHtmlStream, parseRootJsonStream } from '../../src/upstream/parse-root.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { rawGet } from '../helpers/raw-get.js';

const JSON_TYPE = 'application/vnd.pypi.simple.v1+json';

async function* pieces(text: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < text.length; i += size) yield text.subarray(i, i + size);
}

describe('parseRootHtmlStream on a pypi.org-sized list', () => {
  it('streams a 600,000-project root fed in 64 KiB chunks', async () => {
    const count = 600_000;
    const name = (i: number) => `project-${i.toString(36)}`;
    const parts = ['<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" content="1.4">\n'];
    parts.push('    <title>Simple index</title>\n  </head>\n  <body>\n');
    for (let i = 0; i < count; i++) parts.push(`    <a href="/simple/${name(i)}/">${name(i)}</a>\n`);
    parts.push('  </body>\n</html>\n');
    const body = Buffer.from(parts.join(''));
    let seen = 0;
    let first = '';
    let last = '';
    for await (const entry of parseRootHtmlStream(pieces(body, 64 * 1024))) {
      if (seen === 0) first = entry.name;
      last = entry.name;
      seen++;
    }
    assert.equal(seen, count);
    assert.equal(first, name(0));
    assert.equal(last, name(count - 1));
  });
});

describe('parseRootJsonStream on a pypi.org-sized list', () => {
  it('streams a 600,000-project root fed in 64 KiB chunks', async () => {
    const count = 600_000;
    const name = (i: number) => `project-${i.toString(36)}`;
    const parts = ['{"meta":{"_last-serial":999999999,"api-version":"1.4"},"projects":['];
    for (let i = 0; i < count; i++) parts.push(`${i ? ',' : ''}{"_last-serial":${i},"name":"${name(i)}"}`);
    parts.push(']}\n');
    const body = Buffer.from(parts.join(''));
    let seen = 0;
    let first: ProjectListEntry | undefined;
    let last: ProjectListEntry | undefined;
    for await (const entry of parseRootJsonStream(pieces(body, 64 * 1024))) {
      first ??= entry;
      last = entry;
      seen++;
    }
    assert.equal(seen, count);
    assert.deepEqual(first, { name: name(0), serial: 0 });
    assert.deepEqual(last, { name: name(count - 1), serial: count - 1 });
  });
});

describe('the fake upstream with a pypi.org-sized list', () => {
  let upstream: FakeUpstream;
  const get = (url: string, opts: { headers?: Record<string, string> } = {}) => rawGet(url, { timeoutMs: 60_000, ...opts });
  before(async () => {
    upstream = await startFakeUpstream();
    upstream.addProject('fx-app', []);
  });
  after(async () => {
    await upstream.close();
  });

  test('a root of 600,000 names is streamed', async () => {
    upstream.setRootFiller(600_000);
    try {
      const res = await get(upstream.url, { headers: { Accept: JSON_TYPE } });
      assert.equal(res.headers['content-length'], undefined);
      const doc = JSON.parse(res.body.toString());
      assert.equal(doc.projects.length, 600_001, 'the filler names and fx-app');
      assert.equal(doc.projects.at(-1).name, 'pkg-600000');
      const again = await get(upstream.url, { headers: { Accept: JSON_TYPE, 'If-None-Match': res.headers.etag! } });
      assert.equal(again.status, 304);
    } finally {
      upstream.setRootFiller(0);
    }
  });
});
