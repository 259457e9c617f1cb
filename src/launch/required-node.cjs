'use strict';
/**
 * The Node larder needs, as package.json's `engines.node` states it (">=MAJOR.MINOR.PATCH"), and the test of
 * a version against it. Plain CommonJS that old Node parses (no `node:` imports, no `?.` or `??`): the launcher
 * runs on whatever Node the machine has.
 */
const fs = require('fs');
const path = require('path');

/** larder's own folder: the checkout, or the installed package (this file is src/launch/ in both). */
const LARDER_ROOT = path.resolve(__dirname, '..', '..');

function requiredNode(root) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const range = pkg.engines && pkg.engines.node;
  const match = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(range || '');
  if (!match) throw new Error(`package.json engines.node should read ">=MAJOR.MINOR.PATCH", not ${JSON.stringify(range)}`);
  const parts = match.slice(1).map(Number);
  return { parts, text: parts[2] ? parts.join('.') : `${parts[0]}.${parts[1]}` };
}

/** True when `version` ("24.1.0" or "v24.1.0") is at least the required one. */
function satisfies(version, required) {
  const parts = String(version).replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const have = parts[i] || 0;
    if (have !== required.parts[i]) return have > required.parts[i];
  }
  return true;
}

module.exports = { LARDER_ROOT, requiredNode, satisfies };
