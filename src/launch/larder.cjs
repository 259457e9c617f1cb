#!/usr/bin/env node
'use strict';
/**
 * The installed `larder` command (package.json `bin`): runs the compiled CLI, dist/src/main.js, in this process
 * when this Node is recent enough, else on the Node that ensure-node.cjs finds or fetches.
 */
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { failed, nodeFirstOnPath } = require('./node-first.cjs');
const { runChild } = require('./run-child.cjs');

const main = path.join(__dirname, '..', '..', 'dist', 'src', 'main.js');
if (!fs.existsSync(main)) {
  process.stderr.write(`larder: ${main} is missing: build it with npm run build (or run npm run larder -- ARGS in a checkout)\n`);
  process.exit(1);
}
nodeFirstOnPath().then(({ node, env }) => {
  if (node.where === 'running') return import(pathToFileURL(main).href);
  runChild(node.bin, [main].concat(process.argv.slice(2)), env);
}, failed);
