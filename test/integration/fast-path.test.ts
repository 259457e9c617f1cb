/**
 * The fast path and the Koa routes answer alike (docs/performance.md, "The fast path"): two larders on the
 * same upstream, one with the fast path and one without, get the same requests for project pages and files
 * kept on disk; status, headers (in order, but for Date) and body must be the same, byte for byte.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import type { TestLarder } from '../helpers/larder.js';
import { startUpstreamBench, type UpstreamBench } from '../helpers/upstream-bench.js';
import { PIP_ACCEPT } from '../helpers/raw-get.js';

interface Exact {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

function exactGet(url: string, method: string, headers: Record<string, string>): Promise<Exact> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const rawHeaders: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (res.rawHeaders[i]!.toLowerCase() !== 'date') rawHeaders.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        }
        resolve({ status: res.statusCode ?? 0, rawHeaders, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('fast path and Koa routes answer alike', () => {
  let bench: UpstreamBench;
  let fast: TestLarder;
  let koa: TestLarder;
  let small: BuiltDist;
  let big: BuiltDist;

  before(async () => {
    bench = await startUpstreamBench('larder-fast-path-', { upstreamRetries: 0 });
    small = await buildWheel(join(bench.dir, 'small'), { name: 'same-answers', version: '1.0', summary: 'A project served both ways' });
    big = await buildWheel(join(bench.dir, 'big'), { name: 'same-answers', version: '2.0', dataFile: { bytes: 600_000, seed: 'big' } });
    bench.up.addProject('same-answers', [small, big]);
    // No LARDER_PUBLIC_URL: the pages link relative to themselves, so two larders on different ports answer
    // byte for byte alike.
    fast = await bench.larder();
    koa = await bench.larder({}, { fastPath: false });
    // Fill both caches: the page, both files and the wheel's metadata.
    for (const l of [fast, koa]) {
      for (const path of [
        '/simple/same-answers/',
        `/packages/same-answers/${small.filename}`,
        `/packages/same-answers/${big.filename}`,
        `/packages/same-answers/${small.filename}.metadata`,
      ]) {
        const res = await exactGet(`${l.url}${path}`, 'GET', {});
        assert.equal(res.status, 200, `${path} on ${l.url}`);
      }
    }
  });

  after(() => bench?.close());

  const page = '/simple/same-answers/';
  const cases: [string, string, string | (() => string), Record<string, string>][] = [
    ['page, pip (JSON, gzip)', 'GET', page, { Accept: PIP_ACCEPT, 'Accept-Encoding': 'gzip, deflate' }],
    ['page, JSON, identity', 'GET', page, { Accept: 'application/vnd.pypi.simple.v1+json' }],
    ['page, text/html', 'GET', page, { Accept: 'text/html' }],
    ['page, no Accept', 'GET', page, {}],
    ['page, v1+html, gzip', 'GET', page, { Accept: 'application/vnd.pypi.simple.v1+html', 'Accept-Encoding': 'gzip' }],
    ['page, gzip refused', 'GET', page, { Accept: PIP_ACCEPT, 'Accept-Encoding': 'gzip;q=0, identity' }],
    ['page, HEAD', 'HEAD', page, { Accept: PIP_ACCEPT, 'Accept-Encoding': 'gzip' }],
    ['small wheel', 'GET', () => `/packages/same-answers/${small.filename}`, {}],
    ['small wheel, HEAD', 'HEAD', () => `/packages/same-answers/${small.filename}`, {}],
    ['small wheel, range', 'GET', () => `/packages/same-answers/${small.filename}`, { Range: 'bytes=10-99' }],
    ['small wheel, suffix range', 'GET', () => `/packages/same-answers/${small.filename}`, { Range: 'bytes=-20' }],
    ['small wheel, If-Range of another ETag', 'GET', () => `/packages/same-answers/${small.filename}`, { Range: 'bytes=0-9', 'If-Range': '"other"' }],
    ['small wheel, If-None-Match', 'GET', () => `/packages/same-answers/${small.filename}`, { 'If-None-Match': '"ETAG"' }],
    ['metadata', 'GET', () => `/packages/same-answers/${small.filename}.metadata`, {}],
    ['big wheel', 'GET', () => `/packages/same-answers/${big.filename}`, {}],
    ['big wheel, range', 'GET', () => `/packages/same-answers/${big.filename}`, { Range: 'bytes=300000-300099' }],
    ['big wheel, HEAD', 'HEAD', () => `/packages/same-answers/${big.filename}`, {}],
    ['a name that is not normalized (redirect)', 'GET', '/simple/Same_Answers/', {}],
    ['unknown project', 'GET', '/simple/no-such-project-here/', {}],
    ['unknown file', 'GET', '/packages/same-answers/same_answers-9.9-py3-none-any.whl', {}],
    ['unsatisfiable range', 'GET', () => `/packages/same-answers/${small.filename}`, { Range: 'bytes=99999999-' }],
  ];

  for (const [what, method, path, headers] of cases) {
    test(what, async () => {
      const target = typeof path === 'string' ? path : path();
      const sent = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('ETAG', small.sha256)]));
      const a = await exactGet(`${fast.url}${target}`, method, sent);
      const b = await exactGet(`${koa.url}${target}`, method, sent);
      assert.equal(a.status, b.status);
      assert.deepEqual(a.rawHeaders, b.rawHeaders);
      assert.ok(a.body.equals(b.body), `bodies differ: ${a.body.length} and ${b.body.length} bytes`);
    });
  }

  test('If-None-Match with the page ETag each one sent: 304 from both', async () => {
    for (const l of [fast, koa]) {
      const first = await exactGet(`${l.url}${page}`, 'GET', { Accept: PIP_ACCEPT, 'Accept-Encoding': 'gzip' });
      const etag = first.rawHeaders.find((h) => h.toLowerCase().startsWith('etag:'))!.slice(6);
      const again = await exactGet(`${l.url}${page}`, 'GET', { Accept: PIP_ACCEPT, 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
    }
  });
});
