/**
 * The request log line and the request metrics carry the status that was sent: a response whose head went
 * out is logged with that status (and `aborted` when the client closed before it was finished); 499 only
 * when the client closed before anything was sent. Real clients that close mid-body and mid-wait.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream } from '../fixtures/fake-upstream.js';
import { eventually } from '../helpers/eventually.js';
import { startLarder, type TestLarder } from '../helpers/larder.js';
import { rawGet } from '../helpers/raw-get.js';

interface RequestLine {
  msg: string;
  path: string;
  status: number;
  aborted?: boolean;
  err?: unknown;
  code?: string;
}

/** Sends a GET and destroys the connection once `leave` says so: after the head and a first body chunk, or at once. */
function getAndLeave(url: string, leave: 'after-first-chunk' | 'before-answer', sent?: () => boolean): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve(res.statusCode ?? null);
      });
    });
    req.on('error', () => {});
    req.end();
    if (leave === 'before-answer') {
      const poll = setInterval(() => {
        if (!sent?.()) return;
        clearInterval(poll);
        req.destroy();
        resolve(null);
      }, 10);
    }
    req.once('response', () => leave === 'before-answer' && reject(new Error('an answer came before the client left')));
  });
}

async function requestCount(url: string, route: string, status: number): Promise<number> {
  const text = (await rawGet(`${url}/metrics`)).body.toString('utf8');
  const line = text.split('\n').find((l) => l.startsWith(`larder_http_requests_total{route="${route}",method="GET",status="${status}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('the status a request is logged and counted with is the one sent', () => {
  let dir: string;
  let up: FakeUpstream;
  let big: BuiltDist;
  let cut: BuiltDist;
  let l: TestLarder;
  const lines: RequestLine[] = [];
  const requestLine = (path: string) => lines.find((line) => line.msg === 'request' && line.path === path);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-request-log-'));
    big = await buildWheel(dir, { name: 'big', version: '1.0', dataFile: { bytes: 1024 * 1024, seed: 'request-log' } });
    up = await startFakeUpstream();
    cut = await buildWheel(dir, { name: 'cut', version: '1.0', dataFile: { bytes: 256 * 1024, seed: 'request-log-cut' } });
    up.addProject('big', [big]);
    up.addProject('cut', [cut]);
    up.addProject('waiting', []);
    up.addProject('failing', []);
    const logger = pino({ level: 'info', base: undefined }, { write: (line: string) => lines.push(JSON.parse(line) as RequestLine) });
    l = await startLarder({ upstream: up.url, upstreamRetries: 0 }, join(dir, 'data'), { logger });
  });

  after(async () => {
    await up.setFault(null);
    await l?.close();
    await up.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('a 200 whose client closed mid-body is logged and counted as 200, marked aborted', async () => {
    const page = await rawGet(`${l.url}/simple/big/`);
    assert.equal(page.status, 200);
    await up.setFault({ kind: 'hang', afterBytes: 4096, pathPrefix: '/files/' });
    const path = `/packages/big/${big.filename}`;
    assert.equal(await getAndLeave(`${l.url}${path}`, 'after-first-chunk'), 200);
    await eventually(() => requestLine(path) !== undefined, 'the request line of the abandoned download');
    assert.deepEqual({ status: requestLine(path)!.status, aborted: requestLine(path)!.aborted }, { status: 200, aborted: true });
    assert.equal(await requestCount(l.url, '/packages/:project/:filename', 200), 1);
    assert.equal(await requestCount(l.url, '/packages/:project/:filename', 499), 0);
    await up.setFault(null);
  });

  test('a client that closes before anything was sent is logged and counted as 499', async () => {
    await up.setFault({ kind: 'hang', pathPrefix: '/simple/waiting/' });
    const path = '/simple/waiting/';
    await getAndLeave(`${l.url}${path}`, 'before-answer', () => up.requestsTo(path).length > 0);
    await eventually(() => requestLine(path) !== undefined, 'the request line of the abandoned page');
    assert.equal(requestLine(path)!.status, 499);
    assert.equal(requestLine(path)!.aborted, undefined);
    assert.equal(await requestCount(l.url, '/simple/:project/', 499), 1);
    await up.setFault(null);
  });

  test('a response sent whole is logged with its status and not marked', async () => {
    const path = '/simple/big/';
    lines.length = 0;
    assert.equal((await rawGet(`${l.url}${path}`)).status, 200);
    await eventually(() => requestLine(path) !== undefined, 'the request line of the page');
    assert.equal(requestLine(path)!.status, 200);
    assert.equal(requestLine(path)!.aborted, undefined);
  });

  test('an upstream failure answered 502 is logged as one line of text, not an error object with a stack', async () => {
    await up.setFault({ kind: 'status500', pathPrefix: '/simple/failing/' });
    const path = '/simple/failing/';
    assert.equal((await rawGet(`${l.url}${path}`)).status, 502);
    await eventually(() => requestLine(path) !== undefined, 'the request line of the failed page');
    const failed = lines.find((line) => line.msg === 'request failed' && line.path === path);
    assert.ok(failed, 'the failure is logged');
    assert.equal(failed.code, 'upstream_status');
    assert.equal(typeof failed.err, 'string', JSON.stringify(failed.err));
    assert.match(String(failed.err), /^The upstream index .* failed for project failing and larder has no cached copy: .*500/);
    assert.ok(!String(failed.err).includes('\n'), 'one line');
    await up.setFault(null);
  });

  test('an upstream file cut short mid-body is logged once, as one line of text', async () => {
    assert.equal((await rawGet(`${l.url}/simple/cut/`)).status, 200);
    await up.setFault({ kind: 'truncate', pathPrefix: '/files/', count: 1 });
    const path = `/packages/cut/${cut.filename}`;
    const got = await rawGet(`${l.url}${path}`);
    assert.equal(got.status, 200, 'the head went out before the upstream failed');
    await eventually(
      () => requestLine(path) !== undefined && lines.some((line) => line.msg === 'upstream download ended early; nothing was kept'),
      'the lines of the cut download',
    );
    assert.equal(requestLine(path)!.aborted, true);
    const failed = lines.filter((line) => line.msg === 'response failed');
    assert.equal(failed.length, 1, JSON.stringify(failed));
    assert.equal(typeof failed[0]!.err, 'string', JSON.stringify(failed[0]!.err));
  });
});
