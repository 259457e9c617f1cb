/**
 * Regression: with `python3 -m http.server` as the upstream (HTTP/1.0, the connection closed after every
 * response) and pip installing a tree of wheels through larder, larder died of undici's
 * `AssertionError: assert(!this.paused)` (client-h1.js: the peer closed while backpressure had paused the
 * parser; fixed in undici 8's Parser.finish()). Here a real python serves a PEP 503 tree of 25 wheels from
 * its directory listings, a real `larder serve` proxies it, and pip installs the tree through larder in
 * several rounds, each with a fresh data directory so that every page and file comes from the upstream.
 * Every round runs whatever the one before did; the test fails with the outcome of each.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findClients, makeVenv, pipInstall, requireClients, type CommandResult, type Venv } from '../fixtures/clients.js';
import { buildWheel, importName } from '../fixtures/dists.js';
import { startChildServer } from '../helpers/child-server.js';

const ROUNDS = Number(process.env.HTTP10_ROUNDS ?? 4);
const MIDS = 6;
const LEAVES_PER_MID = 3;

const show = (r: CommandResult) =>
  `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}`;

interface PythonServer {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** `python3 -m http.server` on an ephemeral port; resolves once it listens. */
async function pythonHttpServer(python: string, dir: string): Promise<PythonServer> {
  const child = spawn(python, ['-u', '-m', 'http.server', '--bind', '127.0.0.1', '--directory', dir, '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`python -m http.server did not start:\n${out}`)), 15_000);
    child.stdout.on('data', () => {
      const m = /Serving HTTP on \S+ port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`python -m http.server exited (${code}):\n${out}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, child, output: () => out };
}

/** A PEP 503 tree as plain directories (python's listings of simple/<name>/ are the pages); the names. */
async function buildTree(index: string): Promise<string[]> {
  const names: string[] = [];
  const wheel = async (name: string, requiresDist: string[], bytes: number) => {
    names.push(name);
    await buildWheel(join(index, 'simple', name), { name, version: '1.0', requiresDist, dataFile: { bytes, seed: name } });
  };
  let leaf = 0;
  const mids: string[] = [];
  for (let m = 1; m <= MIDS; m++) {
    const leaves: string[] = [];
    for (let l = 0; l < LEAVES_PER_MID; l++) {
      leaf += 1;
      leaves.push(`h10-leaf-${leaf}`);
      // 70–121 KB: a body that arrives with its head and the close in one burst and fills undici's 64 KiB
      // body buffer before larder reads it. With undici 7 such files crashed larder in every round; files
      // over about 1 MB hardly ever did.
      await wheel(`h10-leaf-${leaf}`, [], 66 * 1024 + leaf * 3000);
    }
    mids.push(`h10-mid-${m}`);
    await wheel(`h10-mid-${m}`, leaves, 150_000 + m * 60_000);
  }
  await wheel('h10-top', mids, 600_000);
  return names;
}

async function round(n: number, work: string, upstream: PythonServer, venv: Venv, names: string[]): Promise<void> {
  const larder = await startChildServer(['--data', join(work, `data-${n}`), '--upstream', `${upstream.url}/simple/`]);
  const why = () => `--- larder (${JSON.stringify(larder.exitStatus())})\n${larder.output().slice(-5000)}\n--- upstream\n${upstream.output().slice(-1500)}`;
  try {
    const target = join(work, `site-${n}`);
    const r = await pipInstall(venv, `${larder.url}/simple/`, ['--target', target, 'h10-top'], { timeoutMs: 60_000 });
    assert.equal(larder.alive(), true, `larder died during pip install\n${why()}\n${show(r)}`);
    assert.equal(r.code, 0, `pip failed\n${show(r)}\n${why()}`);
    const run = await venv.run(['-c', `import ${names.map(importName).join(', ')}; print(h10_top.VALUE, h10_leaf_18.VALUE)`], {
      PYTHONPATH: target,
    });
    assert.equal(run.code, 0, show(run));
    assert.equal(run.stdout.trim(), 'h10-top 1.0 h10-leaf-18 1.0');
    assert.equal((await fetch(`${larder.url}/health`)).status, 200, why());
    assert.equal(larder.alive(), true, why());
    assert.deepEqual(await larder.stop('SIGTERM'), { code: 0, signal: null }, why());
  } finally {
    await larder.stop('SIGKILL');
  }
}

test(`pip installs a 25-wheel tree through larder from python -m http.server, ${ROUNDS} rounds, larder survives`, { timeout: 180_000 }, async (t) => {
  if (!(await requireClients(t, ['python']))) return;
  const started = Date.now();
  const { python } = await findClients();
  const work = await mkdtemp(join(tmpdir(), 'larder-e2e-http10-'));
  let upstream: PythonServer | null = null;
  t.after(async () => {
    upstream?.child.kill('SIGTERM');
    await rm(work, { recursive: true, force: true });
  });
  const names = await buildTree(join(work, 'index'));
  assert.equal(names.length, 25);
  upstream = await pythonHttpServer(python!, join(work, 'index'));
  const venv = await makeVenv(join(work, 'venv'), python!);
  t.diagnostic(`setup: ${Date.now() - started} ms`);

  const failures: string[] = [];
  for (let n = 1; n <= ROUNDS; n++) {
    const roundStarted = Date.now();
    try {
      await round(n, work, upstream, venv, names);
      t.diagnostic(`round ${n}: ok, ${Date.now() - roundStarted} ms`);
    } catch (err) {
      const message = (err as Error).message;
      const died = /larder died/.test(message) ? ' (larder died)' : '';
      t.diagnostic(`round ${n}: FAILED${died}, ${Date.now() - roundStarted} ms`);
      failures.push(`round ${n}: ${message}`);
    }
  }
  assert.equal(failures.length, 0, `${failures.length} of ${ROUNDS} rounds failed\n\n${failures.join('\n\n')}`);
});
