/**
 * The launcher (src/launch/) on a machine whose Node is too old for larder, run on that Node as a newcomer's
 * `npm start` runs it: it fetches the official Node build from an npm registry (a local one serving the Node
 * that runs these tests) into its cache once and says so in one line, finds it there afterwards, fails with
 * one line when it cannot fetch, and stands in for the command it runs (signals, exit codes).
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findOldNode, makeNodePackage, NODE_PACKAGE, oldNodeEnv, type OldNode } from '../helpers/old-node.js';
import { startGroup } from '../helpers/process-group.js';
import { startNodeRegistry } from '../helpers/node-registry.js';
import { eventually } from '../helpers/eventually.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const WITH_NODE = join(REPO, 'src/launch/with-node.cjs');
const STACK_LINE = /^\s+at /m;

/** A loopback port nothing listens on: connecting is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** True while any process of the group led by `pid` runs. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim());

const found = findOldNode();
if (typeof found === 'string' && process.env.CI) throw new Error(found);

describe('the launcher on a Node too old for larder', { skip: typeof found === 'string' ? found : false, timeout: 300_000 }, () => {
  const old = found as OldNode;
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'larder-launch-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  /** A fresh cache folder holding larder's Node package, as an earlier fetch leaves it. */
  const filledCache = (name: string) => {
    const cache = join(work, name);
    makeNodePackage(join(cache, 'larder', `${NODE_PACKAGE}-24`));
    return cache;
  };

  test('npm start with an empty cache fetches Node 24 from the registry once, says so in one line and serves /simple/', async (t) => {
    if (!old.npm) return t.skip(`no npm beside ${old.bin}`);
    if (process.versions.node.split('.')[0] !== '24') return t.skip('the local registry serves the Node running the tests, which is not a Node 24');
    const registry = await startNodeRegistry(work);
    t.after(() => registry.close());
    const cache = join(work, 'empty-cache');
    const env = oldNodeEnv(old, {
      XDG_CACHE_HOME: cache,
      npm_config_registry: registry.url,
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_update_notifier: 'false',
      LARDER_OFFLINE: 'true',
    });
    const larder = startGroup(old.npm, ['start', '--', '--port', '0', '--data', join(work, 'data')], { cwd: REPO, env });
    t.after(() => larder.signalGroup('SIGKILL'));
    const [, url] = await larder.waitFor(/listening on (http:\/\/[^\s"()]+)/, 240_000);
    assert.equal((await fetch(`${url}/simple/`)).status, 200);

    const said = lines(larder.stderr()).filter((line) => line.startsWith('larder needs'));
    assert.equal(said.length, 1, larder.stderr());
    assert.match(
      said[0]!,
      new RegExp(
        `^larder needs Node >= 22\\.19 and this is Node ${old.version}; fetching Node 24 \\(${NODE_PACKAGE}@24\\) from the npm registry into \\S+, once$`,
      ),
    );
    assert.deepEqual(
      registry.requests.filter((path) => path !== `/${NODE_PACKAGE}`), // npm may ask for the packument more than once
      ['/tarball.tgz'],
    );
    assert.deepEqual(readdirSync(join(cache, 'larder')), [`${NODE_PACKAGE}-24`], 'only the unpacked package, no temporary folder');

    // Ctrl-C reaches every process of the group (npm itself ends by it); the server shuts down, and nothing is left running.
    await larder.signalGroup('SIGINT');
    assert.match(larder.output(), /SIGINT received, shutting down/);
    assert.doesNotMatch(larder.output(), STACK_LINE);
    await eventually(() => !groupAlive(larder.pid), 'every process of the group has ended', 30_000);
  });

  test('larder serve run by the launcher shuts down gracefully and exits 0 when Ctrl-C reaches both', async (t) => {
    const env = oldNodeEnv(old, { XDG_CACHE_HOME: filledCache('serve-cache'), LARDER_OFFLINE: 'true' });
    const serve = ['node', '--import', 'tsx', 'src/main.ts', 'serve', '--port', '0', '--data', join(work, 'serve-data')];
    const larder = startGroup(old.bin, [WITH_NODE, ...serve], { cwd: REPO, env });
    t.after(() => larder.signalGroup('SIGKILL'));
    const [, url] = await larder.waitFor(/listening on (http:\/\/[^\s"()]+)/, 60_000);
    assert.equal((await fetch(`${url}/simple/`)).status, 200);
    // The launcher passes the signal on, so larder gets it twice: the second must not cut the shutdown short.
    assert.deepEqual(await larder.signalGroup('SIGINT'), { code: 0, signal: null }, larder.output());
    assert.equal(larder.output().match(/SIGINT received, shutting down/g)?.length, 1, larder.output());
  });

  test('the next start finds Node in the cache: no registry, one line naming the Node it runs on', async () => {
    const cache = filledCache('filled-cache');
    const env = oldNodeEnv(old, { XDG_CACHE_HOME: cache, npm_config_registry: `http://127.0.0.1:${await closedPort()}/` });
    const run = startGroup(old.bin, [WITH_NODE, 'node', '-p', 'process.version + " " + process.env.PATH.split(":")[0]'], { cwd: REPO, env });
    assert.deepEqual(await run.exited, { code: 0, signal: null }, run.output());
    const nodeDir = join(cache, 'larder', `${NODE_PACKAGE}-24`);
    assert.equal(run.output().replace(run.stderr(), '').trim(), `v${process.versions.node} ${join(nodeDir, 'bin')}`);
    assert.deepEqual(lines(run.stderr()), [`larder needs Node >= 22.19 and this is Node ${old.version}; using Node ${process.versions.node} from ${nodeDir}`]);
  });

  test('with no registry to fetch from: a line naming the Node needed and how to get it, no stack trace, exit 1, nothing cached', async () => {
    const cache = join(work, 'unreachable-cache');
    const env = oldNodeEnv(old, {
      XDG_CACHE_HOME: cache,
      npm_config_registry: `http://127.0.0.1:${await closedPort()}/`,
      npm_config_cache: join(work, 'npm-cache-unreachable'),
      npm_config_fetch_retries: '0',
    });
    // The launcher itself, and the installed `larder` command (package.json bin) in a copy of the package.
    const installed = join(work, 'installed');
    for (const path of ['package.json', 'src/launch']) cpSync(join(REPO, path), join(installed, path), { recursive: true });
    mkdirSync(join(installed, 'dist/src'), { recursive: true });
    writeFileSync(join(installed, 'dist/src/main.js'), 'console.log("larder ran");\n');
    for (const args of [
      [WITH_NODE, 'node', '-e', '1'],
      [join(installed, 'src/launch/larder.cjs'), '--help'],
    ]) {
      const run = startGroup(old.bin, args, { cwd: REPO, env });
      assert.deepEqual(await run.exited, { code: 1, signal: null }, run.output());
      assert.equal(run.output(), run.stderr(), 'nothing on standard output');
      assert.doesNotMatch(run.stderr(), STACK_LINE);
      const [announce, failure, ...rest] = lines(run.stderr());
      assert.match(announce!, /fetching Node 24/);
      assert.match(
        failure!,
        /^larder needs Node >= 22\.19 and this is Node [\d.]+, and fetching it failed \(npm pack node-linux-\w+@24 failed \(ECONNREFUSED.*\): install Node 22\.19 or newer \(https:\/\/nodejs\.org\/\) and put it first on PATH, or install larder's offline bundle \(docs\/install\.md\)$/,
      );
      assert.deepEqual(rest, []);
      assert.deepEqual(readdirSync(join(cache, 'larder')), [], 'no entry and no temporary folder left in the cache');
    }
  });

  describe('stands in for the command it runs', () => {
    let env: NodeJS.ProcessEnv;
    before(() => {
      env = oldNodeEnv(old, { XDG_CACHE_HOME: filledCache('signals-cache') });
    });
    const run = (script: string) => startGroup(old.bin, [WITH_NODE, 'node', '-e', script], { cwd: REPO, env });

    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      test(`${signal} sent to the launcher alone reaches the command, whose exit code is the launcher's`, async () => {
        const child = run(
          `process.on('${signal}', () => { console.log('got ${signal}'); process.exit(40); }); console.log('ready'); setInterval(() => {}, 1000);`,
        );
        await child.waitFor(/ready/, 30_000);
        process.kill(child.pid, signal);
        assert.deepEqual(await child.exited, { code: 40, signal: null }, child.output());
        assert.match(child.output(), new RegExp(`got ${signal}`));
      });
    }

    test('an exit code, and a death by signal, are passed on', async () => {
      assert.deepEqual(await run('process.exit(7)').exited, { code: 7, signal: null });
      assert.deepEqual(await run("process.kill(process.pid, 'SIGTERM')").exited, { code: null, signal: 'SIGTERM' });
    });
  });

  test('Ctrl-C while Node is being fetched leaves no cache entry and no temporary folder', async (t) => {
    const registry = await startNodeRegistry(work, { stallTarball: true });
    t.after(() => registry.close());
    const cache = join(work, 'interrupted-cache');
    const env = oldNodeEnv(old, { XDG_CACHE_HOME: cache, npm_config_registry: registry.url, npm_config_cache: join(work, 'npm-cache-interrupted') });
    const run = startGroup(old.bin, [WITH_NODE, 'node', '-e', '1'], { cwd: REPO, env });
    t.after(() => run.signalGroup('SIGKILL'));
    await eventually(() => registry.requests.includes('/tarball.tgz'), 'the tarball is being downloaded', 60_000);
    assert.equal(readdirSync(join(cache, 'larder')).filter((name) => name.startsWith('.fetch-')).length, 1, 'the fetch works in a temporary folder');
    assert.deepEqual(await run.signalGroup('SIGINT'), { code: null, signal: 'SIGINT' }, run.output());
    assert.deepEqual(readdirSync(join(cache, 'larder')), []);
  });
});
