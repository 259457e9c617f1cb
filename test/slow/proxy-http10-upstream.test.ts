/**
 * Regression, the fast variant of test/e2e/http10-upstream.test.ts without pip or python: a real `larder
 * serve` child proxies the fake upstream in HTTP/1.0 framings (close-delimited, and Content-Length +
 * close), many downloads run at once with clients that read slowly, and larder must stay alive. With
 * undici 7 larder died here of `assert(!this.paused)`: a body of 64–128 KiB arriving with its head and the
 * close in one burst, before larder reads it, leaves the parser paused by backpressure when the close comes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { startFakeUpstream, type FakeUpstream, type Framing } from '../fixtures/fake-upstream.js';
import { startChildServer } from '../helpers/child-server.js';

const FILES = 12;
const CLIENTS_PER_FILE = 3;

interface Download {
  status: number;
  sha256: string;
  bytes: number;
  error?: string;
}

/** GET with a client that reads slowly: after every chunk it stops reading for `pauseMs`. */
function slowGet(url: string, pauseMs: number): Promise<Download> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      const done = (error?: string) => resolve({ status: res.statusCode ?? 0, sha256: hash.digest('hex'), bytes, error });
      res.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
        res.pause();
        setTimeout(() => res.resume(), pauseMs);
      });
      res.on('end', () => done(res.complete ? undefined : 'incomplete'));
      res.on('error', (err) => done(err.message));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('client timeout')));
    req.on('error', (err) => resolve({ status: 0, sha256: '', bytes: 0, error: err.message }));
    req.end();
  });
}

async function round(n: number, framing: Framing, work: string, up: FakeUpstream, dists: BuiltDist[]): Promise<void> {
  up.configure({ framing });
  up.clearLog();
  const larder = await startChildServer(['--data', join(work, `data-${n}`), '--upstream', up.url]);
  const why = () => `larder ${JSON.stringify(larder.exitStatus())}:\n${larder.output().slice(-4000)}`;
  try {
    const pages = await Promise.all(dists.map((d) => slowGet(`${larder.url}/simple/${d.name}/`, 1)));
    assert.ok(
      pages.every((p) => p.status === 200),
      `${JSON.stringify(pages)}\n${why()}`,
    );
    // Half the files one after another, as pip fetches them; then the other half (and the first half again,
    // from the cache) all at once, several slow clients per file.
    const got: [BuiltDist, Download][] = [];
    for (const d of dists.slice(0, FILES / 2)) got.push([d, await slowGet(`${larder.url}/packages/${d.name}/${d.filename}`, 1)]);
    assert.equal(larder.alive(), true, `larder died\n${why()}`);
    const concurrent = await Promise.all(
      dists.flatMap((d) =>
        Array.from(
          { length: CLIENTS_PER_FILE },
          async (_, c): Promise<[BuiltDist, Download]> => [d, await slowGet(`${larder.url}/packages/${d.name}/${d.filename}`, 1 + c * 2)],
        ),
      ),
    );
    assert.equal(larder.alive(), true, `larder died\n${why()}`);
    for (const [d, download] of [...got, ...concurrent]) {
      assert.equal(download.error, undefined, `${d.filename}: ${download.error}\n${why()}`);
      assert.equal(download.status, 200, d.filename);
      assert.equal(download.sha256, d.sha256, `${d.filename}: ${download.bytes} of ${d.size} bytes`);
    }
    const files = up.requestsTo('/files/');
    assert.equal(files.length, FILES, 'each file came from the upstream once');
    assert.ok(
      files.every((r) => r.framing === framing && r.completed),
      'the upstream sent every file whole',
    );
    assert.equal((await fetch(`${larder.url}/health`)).status, 200, why());
    assert.deepEqual(await larder.stop('SIGTERM'), { code: 0, signal: null }, why());
  } finally {
    await larder.stop('SIGKILL');
  }
}

test('larder survives downloads from an HTTP/1.0 upstream: one by one, then many at once, read slowly', { timeout: 120_000 }, async (t) => {
  const work = await mkdtemp(join(tmpdir(), 'larder-http10-raw-'));
  const up = await startFakeUpstream({ htmlOnly: true, coreMetadata: false });
  t.after(async () => {
    await up.close();
    await rm(work, { recursive: true, force: true });
  });
  const dists: BuiltDist[] = [];
  for (let i = 1; i <= FILES; i++) {
    // 70–120 KB (see the header).
    const dataFile = { bytes: 66 * 1024 + i * 4500, seed: `raw10-${i}` };
    const d = await buildWheel(join(work, 'dists'), { name: `raw10-${i}`, version: '1.0', dataFile });
    up.addProject(d.name, [d]);
    dists.push(d);
  }

  const framings: Framing[] = ['http10', 'http10-length', 'http10', 'http10-length'];
  const failures: string[] = [];
  for (const [n, framing] of framings.entries()) {
    const started = Date.now();
    try {
      await round(n + 1, framing, work, up, dists);
      t.diagnostic(`round ${n + 1} (${framing}): ok, ${Date.now() - started} ms`);
    } catch (err) {
      const message = (err as Error).message;
      t.diagnostic(`round ${n + 1} (${framing}): FAILED${/larder died/.test(message) ? ' (larder died)' : ''}`);
      failures.push(`round ${n + 1} (${framing}): ${message}`);
    }
  }
  assert.equal(failures.length, 0, `${failures.length} of ${framings.length} rounds failed\n\n${failures.join('\n\n')}`);
});
