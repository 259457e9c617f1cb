'use strict';
/**
 * A Node larder can run on: found (see find-node.cjs), or else fetched once into larder's cache. Says in one
 * line on standard error when it is not the running one; when there is none, fails with one line that names
 * the Node needed and how to get it.
 */
const { LARDER_ROOT, requiredNode } = require('./required-node.cjs');
const { FETCHED_MAJOR, cachedNodeDir, findNode, nodePackageName } = require('./find-node.cjs');
const { fetchNode } = require('./fetch-node.cjs');

/** What to print instead of a stack trace. */
class NodeMissing extends Error {}

async function ensureNode(env, say) {
  const required = requiredNode(LARDER_ROOT);
  const need = `larder needs Node >= ${required.text} and this is Node ${process.versions.node}`;
  const found = findNode(LARDER_ROOT, env, required);
  if (found && found.where !== 'running') say(`${need}; using Node ${found.version} from ${found.dir}`);
  if (found) return found;
  const howToGet = `install Node ${required.text} or newer (https://nodejs.org/) and put it first on PATH`;
  const name = nodePackageName(process.platform, process.arch);
  if (!name) {
    const platform = `${process.platform}-${process.arch}`;
    throw new NodeMissing(`${need}, and larder fetches Node only for linux-x64 and linux-arm64 (this is ${platform}): ${howToGet}`);
  }
  const target = cachedNodeDir(env, name);
  say(`${need}; fetching Node ${FETCHED_MAJOR} (${name}@${FETCHED_MAJOR}) from the npm registry into ${target}, once`);
  let fetched;
  try {
    fetched = await fetchNode(name, FETCHED_MAJOR, target, env);
  } catch (err) {
    throw new NodeMissing(`${need}, and fetching it failed (${err.message}): ${howToGet}, or install larder's offline bundle (docs/install.md)`);
  }
  return Object.assign(fetched, { where: 'fetched' });
}

module.exports = { NodeMissing, ensureNode };
