'use strict';
/**
 * Fetches the official Node build from the npm registry with `npm pack node-linux-<arch>@24` (so npm's own
 * registry, proxy and certificate settings apply) and unpacks it into larder's cache. It is unpacked in a
 * temporary folder beside the cache entry and renamed into place: an interrupted fetch leaves no half-written entry.
 */
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { nodeInPackage } = require('./find-node.cjs');
const { forwardSignals } = require('./run-child.cjs');
const TEMP_PREFIX = '.fetch-';
/** A temporary folder this old was left by a fetch that was killed outright. */
const STALE_TEMP_MS = 60 * 60 * 1000;

function removeTree(dir) {
  try {
    if (fs.rmSync) fs.rmSync(dir, { recursive: true, force: true });
    else fs.rmdirSync(dir, { recursive: true }); // Node < 14.14
  } catch (_err) {
    /* already gone */
  }
}

function removeStaleTemps(parent) {
  for (const name of fs.readdirSync(parent)) {
    const dir = path.join(parent, name);
    if (name.startsWith(TEMP_PREFIX) && Date.now() - fs.statSync(dir).mtimeMs > STALE_TEMP_MS) removeTree(dir);
  }
}

/** npm's one-line reason for a failure ("npm error code E404" and the like), from its error output. */
function npmReason(stderr) {
  const code = /npm (?:error|ERR!) code (\S+)/i.exec(stderr);
  const lines = stderr.split('\n').filter((line) => /^npm (error|ERR!) /i.test(line) && !/ (code|errno|syscall) /.test(line));
  const first = lines.length ? lines[0].replace(/^npm (error|ERR!) /i, '').trim() : stderr.trim().split('\n').pop();
  return [code ? code[1] : '', first].filter(Boolean).join(': ') || 'no reason given';
}

/** Runs a command to its end; a signal that reaches this process meanwhile is passed on and noted in `interrupted`. */
function run(command, args, options, interrupted) {
  return new Promise((resolve) => {
    const child = spawn(command, args, Object.assign({ stdio: ['ignore', 'ignore', 'pipe'] }, options));
    const stopForwarding = forwardSignals(child, (signal) => {
      interrupted.signal = signal;
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const done = (result) => {
      stopForwarding();
      resolve(Object.assign({ stderr }, result));
    };
    child.on('error', (error) => done({ error }));
    child.on('close', (code, signal) => done({ code, signal }));
  });
}

async function fetchSteps(spec, work, env, interrupted) {
  const pack = await run('npm', ['pack', spec, '--loglevel=error'], { cwd: work, env }, interrupted);
  if (interrupted.signal) return;
  if (pack.error) throw new Error(pack.error.code === 'ENOENT' ? 'npm is not on PATH' : `npm: ${pack.error.message}`);
  if (pack.code !== 0) throw new Error(`npm pack ${spec} failed (${npmReason(pack.stderr)})`);
  const tarball = fs.readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${spec} wrote no tarball`);
  const untar = await run('tar', ['-xzf', tarball, '--no-same-owner'], { cwd: work, env }, interrupted);
  if (interrupted.signal) return;
  if (untar.error || untar.code !== 0) throw new Error(`tar could not unpack ${tarball} (${untar.error ? untar.error.message : untar.stderr.trim()})`);
  if (!nodeInPackage(path.join(work, 'package'))) throw new Error(`${tarball} holds no package/bin/node`);
}

/** Fetches `name@major` into `target` (a cache entry), replacing an entry that is there but unusable. */
async function fetchNode(name, major, target, env) {
  const parent = path.dirname(target);
  fs.mkdirSync(parent, { recursive: true });
  removeStaleTemps(parent);
  const work = fs.mkdtempSync(path.join(parent, TEMP_PREFIX));
  const interrupted = { signal: null };
  try {
    await fetchSteps(`${name}@${major}`, work, env, interrupted);
    if (!interrupted.signal) {
      if (fs.existsSync(target)) removeTree(target);
      try {
        fs.renameSync(path.join(work, 'package'), target);
      } catch (err) {
        if (!nodeInPackage(target)) throw err; // else another launcher put it there first
      }
    }
  } finally {
    removeTree(work);
  }
  if (interrupted.signal) process.kill(process.pid, interrupted.signal); // no listener left: the default action ends this process
  const node = nodeInPackage(target);
  if (!node) throw new Error(`${target} holds no bin/node after the fetch`);
  return node;
}

module.exports = { fetchNode };
