#!/usr/bin/env node
'use strict';
/**
 * `node src/launch/with-node.cjs COMMAND [ARGS…]`: runs COMMAND with a Node larder can run on first on PATH,
 * whatever Node started it (the package.json scripts go through it). See ensure-node.cjs for where that Node
 * comes from.
 */
const { failed, nodeFirstOnPath } = require('./node-first.cjs');
const { runChild } = require('./run-child.cjs');

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node src/launch/with-node.cjs COMMAND [ARGS...]\n');
  process.exit(2);
}
nodeFirstOnPath().then(({ env }) => runChild(command, args, env), failed);
