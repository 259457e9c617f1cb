/**
 * The offline bundle (`npm run bundle`, docs/install.md) as an air-gapped site uses it: built on the machine's
 * old Node, installed with the documented command by that Node's npm pointed at a registry that records every
 * request (none may come) and an empty npm cache, then `larder serve` from the install answers /simple/ on the
 * Node the bundle carries.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { INSTALL_COMMAND } from '../../src/bundle/bundle-manifest.js';
import { findOldNode, makeNodePackage, NODE_PACKAGE, oldNodeEnv } from '../helpers/old-node.js';
import { startGroup } from '../helpers/process-group.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };

const found = findOldNode();
if (typeof found === 'string' && process.env.CI) throw new Error(found);
const skip = typeof found === 'string' ? found : !found.npm ? `no npm beside ${found.bin}` : false;

test('the offline bundle builds, installs with no registry on an old Node, and serves /simple/ on the Node it carries', {
  skip,
  timeout: 900_000,
}, async (t) => {
  const old = typeof found === 'string' ? assert.fail(found) : found;
  const work = mkdtempSync(join(tmpdir(), 'larder-bundle-test-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const requests: string[] = [];
  const registry = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.statusCode = 503;
    res.end();
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  t.after(() => registry.close());
  const registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;

  // Built where the registry is reachable (the dependencies come from npm's cache); the Node package from larder's cache.
  const cache = join(work, 'build-cache');
  makeNodePackage(join(cache, 'larder', `${NODE_PACKAGE}-24`));
  const out = join(work, 'out');
  const build = startGroup(old.npm!, ['run', 'bundle', '--', '--out', out], { cwd: REPO, env: oldNodeEnv(old, { XDG_CACHE_HOME: cache }) });
  assert.deepEqual(await build.exited, { code: 0, signal: null }, build.output());
  const bundle = join(out, `larder-${version}-${process.platform}-${process.arch}.tgz`);
  assert.ok(existsSync(bundle), build.output());
  assert.match(build.output(), new RegExp(`install it where no registry is reachable with: ${INSTALL_COMMAND} \\./larder-`));

  // Installed as docs/install.md says, with the registry out of use and nothing in npm's cache.
  const prefix = join(work, 'prefix');
  const [npmInstall, ...installArgs] = INSTALL_COMMAND.split(' ').slice(1);
  const farSide = {
    npm_config_registry: registryUrl,
    npm_config_fetch_retries: '0',
    npm_config_cache: join(work, 'empty-npm-cache'),
    XDG_CACHE_HOME: join(work, 'empty-cache'),
  };
  const install = startGroup(old.npm!, [npmInstall!, ...installArgs, '--prefix', prefix, bundle], { cwd: work, env: oldNodeEnv(old, farSide) });
  assert.deepEqual(await install.exited, { code: 0, signal: null }, install.output());

  const env = oldNodeEnv(old, { ...farSide, LARDER_OFFLINE: 'true' });
  env.PATH = `${join(prefix, 'bin')}:${env.PATH}`;
  const larder = startGroup('larder', ['serve', '--port', '0', '--data', join(work, 'data')], { cwd: work, env });
  t.after(() => larder.signalGroup('SIGKILL'));
  const [, url] = await larder.waitFor(/listening on (http:\/\/[^\s"()]+)/, 60_000);
  assert.equal((await fetch(`${url}/simple/`)).status, 200);
  const bundledNode = join(prefix, 'lib', 'node_modules', 'larder', 'node_modules', NODE_PACKAGE);
  assert.match(
    larder.stderr(),
    new RegExp(`^larder needs Node >= 22\\.19 and this is Node ${old.version}; using Node ${process.versions.node} from ${bundledNode}$`, 'm'),
  );
  assert.deepEqual(await larder.signalGroup('SIGTERM'), { code: 0, signal: null }, larder.output());
  assert.deepEqual(requests, [], 'no request reached the registry');
});
