import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { LARDER_VERSION } from '../../src/base/version.js';

test("larder's version is package.json's, so the User-Agent and export manifests follow a release bump", () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(LARDER_VERSION, pkg.version);
});
