/**
 * Links never come from the Host header (docs/security.md, "The Host header"): a duplicate or malformed Host
 * is refused with 400 before any route sees it; the simple pages link relative to themselves
 * (one rendering for every client, whatever Host it sent) unless LARDER_PUBLIC_URL is set; the JSON API and
 * the web pages, which need absolute URLs, take them from a valid Host and are never shared between Hosts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import type { BuiltDist } from '../fixtures/dists.js';
import type { FakeUpstream } from '../fixtures/fake-upstream.js';
import type { TestLarder } from '../helpers/larder.js';
import { suiteUpstreamBench } from '../helpers/upstream-bench.js';
import { PIP_ACCEPT } from '../helpers/raw-get.js';
import { rawRequest, type RawExchange } from '../helpers/raw-socket.js';

const JSON_API_SHAPE = (body: Buffer) => JSON.parse(body.toString('utf8')) as { urls: { url: string }[]; info: { package_url: string } };

/** A request with exactly the given Host lines (none for `[]`), sent over a bare socket. */
function withHosts(
  base: string,
  path: string,
  hosts: string[],
  opts: { accept?: string; httpVersion?: '1.0' | '1.1'; method?: string } = {},
): Promise<RawExchange> {
  const lines = [
    `${opts.method ?? 'GET'} ${path} HTTP/${opts.httpVersion ?? '1.1'}`,
    ...hosts.map((host) => `Host: ${host}`),
    ...(opts.accept ? [`Accept: ${opts.accept}`] : []),
    'Connection: close',
    '',
    '',
  ];
  return rawRequest(base, { rawRequest: lines.join('\r\n') });
}

const status = (res: RawExchange) => Number(res.statusLine.split(' ')[1]);

describe('the Host header', () => {
  const bench = suiteUpstreamBench('larder-host-', { upstreamRetries: 0 });
  let up: FakeUpstream;
  let wheel: BuiltDist;
  let fast: TestLarder;
  let published: TestLarder;

  before(async () => {
    up = bench.up;
    wheel = await bench.offerWheel({ name: 'host-app', version: '1.0' });
    for (let i = 0; i < 30; i++) up.addProject(`filler-${i}`, []);
    fast = await bench.larder();
    published = await bench.larder({ publicUrl: 'https://index.example/pypi' });
  });

  const PATHS = ['/simple/', '/simple/host-app/', '/pypi/host-app/json', '/', `/packages/host-app/${'x'.repeat(3)}.whl`];

  test('a Host that is not host[:port] is refused with 400 and one line, on every path, hot route or not', async () => {
    const refused = [
      'host//evil.example',
      'a/b',
      'a@b',
      'a b',
      'evil.example/',
      '[::1',
      '[::1]x',
      '[not-v6]:80',
      'host:',
      'host:99999',
      'host:80:80',
      '-a.example',
      'a..b',
      'x'.repeat(300),
    ];
    for (const host of refused) {
      for (const path of PATHS) {
        const res = await withHosts(fast.url, path, [host]);
        assert.equal(status(res), 400, `${host} ${path}: ${res.statusLine}`);
        const body = res.body.toString('utf8');
        assert.match(
          body,
          /^The Host header .* is not host\[:port\]: a DNS name, an IPv4 address or a \[bracketed\] IPv6 address, and an optional numeric port\.\n$/,
        );
        assert.equal(body.split('\n').length, 2, 'one line');
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        assert.ok(!body.includes('x'.repeat(100)), 'a long value is quoted in part only');
      }
    }
  });

  test('a refused Host is counted like any other request', async () => {
    const metrics = async () =>
      (await (await fetch(`${fast.url}/metrics`)).text()).match(/^larder_http_requests_total\{route="unmatched",method="GET",status="400"\} (\d+)$/m)?.[1];
    const before = Number((await metrics()) ?? 0);
    assert.equal(status(await withHosts(fast.url, '/simple/', ['a/b'])), 400);
    assert.equal(Number(await metrics()), before + 1);
  });

  test('two Host headers are refused with 400, even when they agree', async () => {
    const port = new URL(fast.url).port;
    for (const path of PATHS) {
      for (const hosts of [
        [`127.0.0.1:${port}`, 'evil.example'],
        [`127.0.0.1:${port}`, `127.0.0.1:${port}`],
      ]) {
        const res = await withHosts(fast.url, path, hosts);
        assert.equal(status(res), 400, `${hosts.join(' + ')} ${path}`);
        assert.equal(
          res.body.toString('utf8'),
          'The request has 2 Host headers; send exactly one (host[:port]: a DNS name, an IPv4 address or a [bracketed] IPv6 address, and an optional numeric port).\n',
        );
      }
    }
  });

  test('an empty Host on HTTP/1.1 is refused; HTTP/1.0 without Host is served, with links that still work', async () => {
    const empty = await withHosts(fast.url, '/simple/host-app/', ['']);
    assert.equal(status(empty), 400);
    assert.match(empty.body.toString('utf8'), /^The Host header is empty/);

    const page = await withHosts(fast.url, '/simple/host-app/', [], { httpVersion: '1.0', accept: PIP_ACCEPT });
    assert.equal(status(page), 200, page.statusLine);
    const [file] = (JSON.parse(page.body.toString('utf8')) as { files: { url: string }[] }).files;
    assert.equal(file!.url, `../../packages/host-app/${wheel.filename}`);
    const download = await fetch(new URL(file!.url, `${fast.url}/simple/host-app/`));
    assert.equal(download.status, 200);

    const api = await withHosts(fast.url, '/pypi/host-app/json', [], { httpVersion: '1.0' });
    assert.equal(status(api), 200);
    const { urls } = JSON_API_SHAPE(api.body);
    assert.equal(urls[0]!.url, `${fast.url}/packages/host-app/${wheel.filename}`, 'the address the request came in on');
  });

  test('valid forms are served: names, IPv4, [IPv6], ports, a trailing dot, an underscore', async () => {
    for (const host of [
      'localhost',
      'LOCALHOST:3142',
      '127.0.0.1',
      '127.0.0.1:80',
      '[::1]',
      '[::1]:3142',
      '[2001:db8::7]:443',
      'index.example.',
      'my_larder:3142',
      'a-b.c-d.example',
    ]) {
      const res = await withHosts(fast.url, '/simple/host-app/', [host]);
      assert.equal(status(res), 200, `${host}: ${res.statusLine}`);
    }
  });

  test('after requests with other Hosts, the next ordinary client gets the same pages: relative links, no other host', async () => {
    const pages = ['/simple/', '/simple/host-app/'];
    const accepts = ['text/html', PIP_ACCEPT];
    for (const path of pages) {
      for (const accept of accepts) {
        assert.equal(status(await withHosts(fast.url, path, ['host//evil.example'], { accept })), 400);
        const other = await withHosts(fast.url, path, ['other.example:1234'], { accept });
        assert.equal(status(other), 200);
        assert.ok(!other.body.toString('utf8').includes('other.example'), `${path} ${accept}: the Host is not in the page`);

        const ordinary = await rawRequest(`${fast.url}${path}`, { headers: { Accept: accept, Connection: 'close' } });
        assert.equal(status(ordinary), 200);
        const body = ordinary.body.toString('utf8');
        assert.ok(!body.includes('other.example'), `${path} ${accept}: ${body.slice(0, 400)}`);
        assert.ok(!body.includes('//evil'), `${path} ${accept}`);
        assert.ok(!body.includes('127.0.0.1'), `${path} ${accept}: no host at all`);
        assert.equal(ordinary.headers.etag, other.headers.etag, `${path} ${accept}: one rendering for every Host`);
        assert.ok(other.body.equals(ordinary.body));
      }
    }
    const html = (await rawRequest(`${fast.url}/simple/`, { headers: { Accept: 'text/html', Connection: 'close' } })).body.toString('utf8');
    assert.match(html, /<a href="host-app\/">host-app<\/a>/);
    const project = (await rawRequest(`${fast.url}/simple/host-app/`, { headers: { Accept: 'text/html', Connection: 'close' } })).body.toString('utf8');
    assert.match(project, new RegExp(`<a href="\\.\\./\\.\\./packages/host-app/${wheel.filename}#sha256=${wheel.sha256}"`));
  });

  test('the root list is rendered once for many Host values: the same files on disk, the same ETag', async () => {
    const cacheDir = join(fast.data, 'cache');
    const first = await withHosts(fast.url, '/simple/', ['first.example'], { accept: 'text/html' });
    assert.equal(status(first), 200);
    const renderings = async () => {
      const names = (await readdir(cacheDir)).filter((name) => name.startsWith('root-')).sort();
      return Promise.all(names.map(async (name) => `${name} ${(await stat(join(cacheDir, name))).ino}`));
    };
    const before = await renderings();
    assert.ok(
      before.some((line) => /\.html /.test(line)),
      before.join('\n'),
    );
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => withHosts(fast.url, '/simple/', [`host-${i}.example:${1000 + i}`], { accept: 'text/html' })),
    );
    for (const res of answers) {
      assert.equal(status(res), 200);
      assert.equal(res.headers.etag, first.headers.etag);
    }
    assert.deepEqual(await renderings(), before, 'no rendering was made or replaced for the other Hosts');
  });

  test("the JSON API's absolute URLs come from a valid Host, and are private to that client", async () => {
    const other = await withHosts(fast.url, '/pypi/host-app/json', ['other.example:1234']);
    assert.equal(status(other), 200);
    const doc = JSON_API_SHAPE(other.body);
    assert.equal(doc.urls[0]!.url, `http://other.example:1234/packages/host-app/${wheel.filename}`);
    assert.equal(doc.info.package_url, 'http://other.example:1234/project/host-app/');
    assert.match(other.headers['cache-control']!, /\bprivate\b/);
    assert.doesNotMatch(other.headers['cache-control']!, /\bpublic\b/);

    const ordinary = await rawRequest(`${fast.url}/pypi/host-app/json`, { headers: { Connection: 'close' } });
    assert.equal(JSON_API_SHAPE(ordinary.body).urls[0]!.url, `${fast.url}/packages/host-app/${wheel.filename}`);
    assert.ok(!ordinary.body.toString('utf8').includes('other.example'));
    assert.notEqual(ordinary.headers.etag, other.headers.etag);

    // The same Host again: the same ETag (304 when the client has it), and gzip that decodes to the same bytes.
    const again = await withHosts(fast.url, '/pypi/host-app/json', ['other.example:1234']);
    assert.equal(again.headers.etag, other.headers.etag);
    const zipped = await rawRequest(`${fast.url}/pypi/host-app/json`, {
      rawRequest: 'GET /pypi/host-app/json HTTP/1.1\r\nHost: other.example:1234\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n',
    });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.ok(gunzipSync(zipped.body).equals(other.body));
    const unchanged = await rawRequest(`${fast.url}/pypi/host-app/json`, {
      rawRequest: `GET /pypi/host-app/json HTTP/1.1\r\nHost: other.example:1234\r\nIf-None-Match: ${other.headers.etag}\r\nConnection: close\r\n\r\n`,
    });
    assert.equal(status(unchanged), 304);
  });

  test("the web pages' snippets name a valid Host; the pages are not shared", async () => {
    const help = await withHosts(fast.url, '/help/', ['other.example:1234']);
    assert.equal(status(help), 200);
    assert.ok(help.body.toString('utf8').includes('http://other.example:1234/simple/'));
    assert.match(help.headers['cache-control']!, /\bprivate\b/);
  });

  test('behind a reverse proxy that mounts larder under /pypi/, the links resolve through the proxy', async () => {
    const target = new URL(fast.url);
    const proxy = createServer((req, res) => {
      if (!req.url!.startsWith('/pypi/')) return void res.writeHead(404).end();
      const headers = { ...req.headers, host: 'index.example' };
      const forwarded = request({ host: target.hostname, port: target.port, path: req.url!.slice('/pypi'.length), headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const root = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/pypi/simple/`;
      const list = await (await fetch(root, { headers: { Accept: 'text/html' } })).text();
      const pageUrl = new URL(/<a href="([^"]+)">host-app<\/a>/.exec(list)![1]!, root).href;
      assert.equal(pageUrl, `${root}host-app/`);
      for (const accept of [PIP_ACCEPT, 'text/html']) {
        const page = await (await fetch(pageUrl, { headers: { Accept: accept } })).text();
        const href = accept === PIP_ACCEPT ? (JSON.parse(page) as { files: { url: string }[] }).files[0]!.url : /<a href="([^"#]+)/.exec(page)![1]!;
        const fileUrl = new URL(href, pageUrl);
        assert.equal(fileUrl.pathname, `/pypi/packages/host-app/${wheel.filename}`);
        const file = await fetch(fileUrl);
        assert.equal(file.status, 200);
        assert.equal(
          createHash('sha256')
            .update(Buffer.from(await file.arrayBuffer()))
            .digest('hex'),
          wheel.sha256,
        );
      }
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  test('with LARDER_PUBLIC_URL, links are absolute under it whatever the Host, and the JSON API is shared', async () => {
    for (const host of ['other.example:1234', new URL(published.url).host]) {
      const page = await withHosts(published.url, '/simple/host-app/', [host], { accept: PIP_ACCEPT });
      const [file] = (JSON.parse(page.body.toString('utf8')) as { files: { url: string }[] }).files;
      assert.equal(file!.url, `https://index.example/pypi/packages/host-app/${wheel.filename}`);
      const root = await withHosts(published.url, '/simple/', [host], { accept: 'text/html' });
      assert.match(root.body.toString('utf8'), /<a href="\/pypi\/simple\/host-app\/">host-app<\/a>/);
      const api = await withHosts(published.url, '/pypi/host-app/json', [host]);
      assert.equal(JSON_API_SHAPE(api.body).urls[0]!.url, `https://index.example/pypi/packages/host-app/${wheel.filename}`);
      assert.match(api.headers['cache-control']!, /\bpublic\b/);
      assert.ok(!Buffer.concat([page.body, root.body, api.body]).toString('utf8').includes('other.example'));
      const zipped = await rawRequest(`${published.url}/pypi/host-app/json`, {
        rawRequest: `GET /pypi/host-app/json HTTP/1.1\r\nHost: ${host}\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n`,
      });
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.ok(gunzipSync(zipped.body).equals(api.body), 'the shared document, compressed');
    }
  });
});
