'use strict';
/**
 * The launcher's common start: a Node larder can run on (ensure-node.cjs), or one line and exit 1; and the
 * environment with that Node's folder first on PATH, so that `tsx`, `npm` and child processes run on it too.
 */
const path = require('path');
const { NodeMissing, ensureNode } = require('./ensure-node.cjs');

const say = (line) => process.stderr.write(`${line}\n`);

async function nodeFirstOnPath() {
  let node;
  try {
    node = await ensureNode(process.env, say);
  } catch (err) {
    if (!(err instanceof NodeMissing)) throw err;
    say(err.message);
    process.exit(1);
  }
  const env = Object.assign({}, process.env, { PATH: path.dirname(node.bin) + path.delimiter + (process.env.PATH || '') });
  return { node, env };
}

/** A launcher bug: its stack, and exit 1 (old Node would only warn about the unhandled rejection). */
function failed(err) {
  say(err && err.stack ? err.stack : String(err));
  process.exit(1);
}

module.exports = { failed, nodeFirstOnPath };
