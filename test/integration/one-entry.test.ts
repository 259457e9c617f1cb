/**
 * One way in (docs/performance.md, "How a request enters"): a GET or HEAD of a hot route (`/simple/…`,
 * `/packages/…`, `/pypi/…`) is matched once by the route table and answered by its handler through one
 * writer, whatever the outcome (found, not found, an upstream error, a file still downloading); the request
 * is logged and counted under its route as on the Koa routes; another method on the same path gets the
 * router's 405; a URL naming a project in another spelling or percent-encoded is answered alike. The web
 * pages are in the same route table, ahead of the index API, with their own way of asking for a login.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { eventually } from '../helpers/eventually.js';
import type { TestLarder } from '../helpers/larder.js';
import { PIP_ACCEPT, rawGet } from '../helpers/raw-get.js';
import { startUpstreamBench, type UpstreamBench } from '../helpers/upstream-bench.js';

interface LogLine {
  msg: string;
  method?: string;
  path?: string;
  status?: number;
  code?: string;
  cache?: string;
}

/** A request on a fresh connection, with the reason phrase the server sent. */
function exchange(url: string, method = 'GET', headers: Record<string, string> = {}) {
  return new Promise<{ status: number; reason: string; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, reason: res.statusMessage!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function metric(url: string, line: RegExp): Promise<number> {
  const text = (await rawGet(`${url}/metrics`)).body.toString('utf8');
  return Number(text.match(line)?.[1] ?? 0);
}

const counted = (route: string, status: number) =>
  new RegExp(`^larder_http_requests_total\\{route="${route.replace(/[/:]/g, '\\$&')}",method="GET",status="${status}"\\} (\\d+)$`, 'm');

describe('one way into the server', () => {
  let bench: UpstreamBench;
  let larder: TestLarder;
  let guarded: TestLarder;
  let small: BuiltDist;
  let big: BuiltDist;
  const lines: LogLine[] = [];
  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  before(async () => {
    bench = await startUpstreamBench('larder-one-entry-', { upstreamRetries: 0 });
    small = await buildWheel(join(bench.dir, 'small'), { name: 'one-entry', version: '1.0' });
    big = await buildWheel(join(bench.dir, 'big'), { name: 'one-entry', version: '2.0', dataFile: { bytes: 600_000, seed: 'one-entry' } });
    bench.up.addProject('one-entry', [small, big]);
    bench.up.addProject('failing-project', []);
    const logger = pino({ level: 'info', base: undefined }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
    larder = await bench.larder({}, { logger });
    guarded = await bench.larder({ readAuth: true });
    await guarded.addUser('reader', 'reader-password');
  });

  after(() => bench?.close());

  const logged = (path: string) => lines.filter((l) => l.msg === 'request' && l.path === path);

  test('a page that is found, one that is not, and an upstream failure are answered, logged and counted under the route', async () => {
    const route = '/simple/:project/';
    const before200 = await metric(larder.url, counted(route, 200));
    const before404 = await metric(larder.url, counted(route, 404));

    const found = await exchange(`${larder.url}/simple/one-entry/`, 'GET', { Accept: PIP_ACCEPT });
    assert.equal(found.status, 200);
    assert.equal(found.headers['x-larder-cache'], 'miss');

    const missing = await exchange(`${larder.url}/simple/no-such-project/`);
    assert.equal(missing.status, 404);
    assert.equal(missing.reason, 'Not Found');
    assert.equal(missing.body.toString(), '404 Not Found');
    assert.equal(missing.headers.vary, 'Accept');
    assert.ok(missing.headers['x-larder-cache'], 'the not-found answer says where it looked');

    await bench.up.setFault({ kind: 'status500', pathPrefix: '/simple/failing-project/' });
    const failed = await exchange(`${larder.url}/simple/failing-project/`);
    await bench.up.setFault(null);
    assert.ok(failed.status >= 500, `status ${failed.status}`);
    const text = failed.body.toString();
    assert.match(text, /^[^\n]+\n$/, 'one line');
    assert.equal(failed.reason, text.trim().slice(0, 1024), 'the message is the reason phrase too');

    await eventually(() => logged('/simple/failing-project/').length > 0, 'the failed request logged');
    assert.equal(logged('/simple/no-such-project/')[0]?.code, 'not_found');
    assert.ok(logged('/simple/failing-project/')[0]?.code, 'the error code is logged');
    assert.equal(logged('/simple/one-entry/')[0]?.cache, 'miss');
    assert.equal(await metric(larder.url, counted(route, 200)), before200 + 1);
    assert.equal(await metric(larder.url, counted(route, 404)), before404 + 1);
    assert.equal(await metric(larder.url, counted(route, failed.status)), 1);
  });

  test('a file still downloading is streamed; once cached, its bytes are counted once per download', async () => {
    const path = `/packages/one-entry/${big.filename}`;
    const served = /^larder_cache_served_bytes_total (\d+)$/m;
    const first = await exchange(`${larder.url}${path}`);
    assert.equal(first.status, 200);
    assert.equal(first.headers['x-larder-cache'], 'miss');
    assert.equal(sha256(first.body), big.sha256);
    assert.equal(bench.up.requestsTo(`/files/`).filter((r) => r.path.endsWith(big.filename)).length, 1, 'one download upstream');

    const before = await metric(larder.url, served);
    const again = await exchange(`${larder.url}${path}`);
    assert.equal(again.headers['x-larder-cache'], 'hit');
    assert.equal(sha256(again.body), big.sha256);
    await eventually(async () => (await metric(larder.url, served)) === before + big.size, 'the served bytes counted');
    assert.equal(await metric(larder.url, served), before + big.size);
    assert.equal(await metric(larder.url, counted('/packages/:project/:filename', 200)), 2);

    const unknown = await exchange(`${larder.url}/packages/one-entry/one_entry-9.9-py3-none-any.whl`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.reason, `No file one_entry-9.9-py3-none-any.whl in project one-entry.`);
    const unsatisfiable = await exchange(`${larder.url}${path}`, 'GET', { Range: 'bytes=99999999-' });
    assert.equal(unsatisfiable.status, 416);
    assert.equal(unsatisfiable.headers['content-range'], `bytes */${big.size}`);
    assert.equal(unsatisfiable.headers['x-larder-cache'], 'hit');
  });

  test('a name in another spelling is redirected, a percent-encoded one answered alike, the query kept', async () => {
    const plain = await exchange(`${larder.url}/simple/one-entry/`, 'GET', { Accept: 'text/html' });
    const encoded = await exchange(`${larder.url}/simple/one%2Dentry/`, 'GET', { Accept: 'text/html' });
    assert.equal(encoded.status, 200);
    assert.equal(encoded.headers.etag, plain.headers.etag);
    assert.ok(encoded.body.equals(plain.body));

    const other = await exchange(`${larder.url}/simple/One_Entry/?format=text/html`);
    assert.equal(other.status, 301);
    assert.equal(other.headers.location, '/simple/one-entry/?format=text/html');
    assert.equal(other.headers['access-control-allow-origin'], '*');
    const noSlash = await exchange(`${larder.url}/simple/one-entry`);
    assert.equal(noSlash.headers.location, '/simple/one-entry/');
    const api = await exchange(`${larder.url}/pypi/One.Entry/1.0/json`);
    assert.equal(api.status, 301);
    assert.equal(api.headers.location, '/pypi/one-entry/1.0/json');

    const file = await exchange(`${larder.url}/packages/one-entry/${small.filename.replace('-', '%2D')}`);
    assert.equal(file.status, 200);
    assert.equal(sha256(file.body), small.sha256);
  });

  test('the format parameter of the query reaches the hot route', async () => {
    const json = await exchange(`${larder.url}/simple/one-entry/?format=application/vnd.pypi.simple.v1%2Bjson`, 'GET', { Accept: 'text/html' });
    assert.equal(json.status, 200);
    assert.equal(json.headers['content-type'], 'application/vnd.pypi.simple.v1+json');
  });

  test('another method on a hot route gets the router’s 405 with Allow', async () => {
    const res = await exchange(`${larder.url}/simple/one-entry/`, 'POST');
    assert.equal(res.status, 405);
    assert.match(String(res.headers.allow), /\bGET\b/);
  });

  test('with read authentication, a hot route asks for credentials as the Koa routes do', async () => {
    for (const path of ['/simple/one-entry/', `/packages/one-entry/${small.filename}`, '/pypi/one-entry/json', '/no-such-path']) {
      const refused = await exchange(`${guarded.url}${path}`);
      assert.equal(refused.status, 401, path);
      assert.equal(refused.headers['www-authenticate'], 'Basic realm="larder"');
      assert.equal(refused.body.toString(), 'Credentials are required to read from this index.\n');
    }
    const auth = `Basic ${Buffer.from('reader:reader-password').toString('base64')}`;
    const allowed = await exchange(`${guarded.url}/simple/one-entry/`, 'GET', { Authorization: auth });
    assert.equal(allowed.status, 200);
    const wrong = await exchange(`${guarded.url}/simple/one-entry/`, 'GET', { Authorization: `Basic ${Buffer.from('reader:nope').toString('base64')}` });
    assert.equal(wrong.status, 403);
  });

  test('with read authentication, web pages ask for a login; what they pass on, and what no route answers, get the 401', async () => {
    const auth = `Basic ${Buffer.from('reader:reader-password').toString('base64')}`;
    const page = await exchange(`${guarded.url}/stats/`, 'GET', { Accept: 'text/html' });
    assert.equal(page.status, 303);
    assert.equal(page.headers.location, '/account/login/?next=%2Fstats%2F');
    const passedOn = await exchange(`${guarded.url}/stats/`, 'GET', { Accept: 'application/json' });
    assert.equal(passedOn.status, 401);
    assert.equal(passedOn.body.toString(), 'Credentials are required to read from this index.\n');
    const json = await exchange(`${guarded.url}/stats/`, 'GET', { Accept: 'application/json', Authorization: auth });
    assert.equal(json.status, 200);
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');

    const otherMethod = await exchange(`${guarded.url}/account/login/`, 'DELETE');
    assert.equal(otherMethod.status, 401, 'a method no web route takes is not a page');
    const allowed = await exchange(`${guarded.url}/account/login/`, 'DELETE', { Authorization: auth });
    assert.equal(allowed.status, 405);
    assert.deepEqual(String(allowed.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'POST']);
    const options = await exchange(`${guarded.url}/account/login/`, 'OPTIONS', { Authorization: auth });
    assert.equal(options.status, 200);
  });
});
