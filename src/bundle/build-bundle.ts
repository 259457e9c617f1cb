/**
 * `npm run bundle [-- --without-node] [--out DIR]`: builds larder's offline bundle, one npm tarball that installs
 * and runs where no registry can be reached (docs/install.md): the compiled dist/, config/, the launcher and
 * every production dependency with its prebuilt native part for this platform, and, unless --without-node,
 * the official Node build (the npm package node-linux-<arch>) that the launcher runs larder on when the
 * machine's Node is too old. Run it on a machine of the target's platform that reaches the npm registry.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BundledNode, BUNDLE_FILES, bundleFileName, bundleManifest, INSTALL_COMMAND, type PackageJson } from './bundle-manifest.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface NodePackage {
  bin: string;
  version: string;
  dir: string;
}
/** The launcher's plain-JavaScript modules (src/launch/), which find and fetch the Node package. */
const findNode = createRequire(import.meta.url)('../launch/find-node.cjs') as {
  FETCHED_MAJOR: number;
  nodePackageName(platform: string, arch: string): string | null;
  cachedNodeDir(env: NodeJS.ProcessEnv, packageName: string): string;
  nodeInPackage(dir: string): NodePackage | null;
};
const fetchNode = createRequire(import.meta.url)('../launch/fetch-node.cjs') as {
  fetchNode(name: string, major: number, target: string, env: NodeJS.ProcessEnv): Promise<NodePackage>;
};

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error) throw new Error(`could not run ${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

/** The node-<platform>-<arch> package from larder's cache, fetched from the npm registry first when it is not there. */
async function nodePackage(env: NodeJS.ProcessEnv): Promise<BundledNode & { dir: string }> {
  const packageName = findNode.nodePackageName(process.platform, process.arch);
  if (!packageName) throw new Error(`the npm registry has no Node package larder knows for ${process.platform}-${process.arch}; build with --without-node`);
  const dir = findNode.cachedNodeDir(env, packageName);
  let node = findNode.nodeInPackage(dir);
  if (!node) {
    console.error(`fetching ${packageName}@${findNode.FETCHED_MAJOR} from the npm registry into ${dir}`);
    node = await fetchNode.fetchNode(packageName, findNode.FETCHED_MAJOR, dir, env);
  }
  return { packageName, version: node.version, dir };
}

/** Copies an unpacked Node package; its bin/node is copied as a file even where the cache holds a link to it. */
function copyNodePackage(from: string, to: string): void {
  const binary = join(from, 'bin', 'node');
  cpSync(from, to, { recursive: true, filter: (path) => path !== binary });
  copyFileSync(binary, join(to, 'bin', 'node'));
}

async function buildBundle(outDir: string, withNode: boolean, env: NodeJS.ProcessEnv): Promise<string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  const node = withNode ? await nodePackage(env) : null;
  const stage = mkdtempSync(join(tmpdir(), 'larder-bundle-'));
  try {
    run('npm', ['run', 'build', '--', '--outDir', join(stage, 'dist')], ROOT);
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(ROOT, file), join(stage, file));
    // The dependencies as the lock file pins them, with this platform's prebuilt native packages; install
    // scripts are not needed (lmdb and msgpackr load the prebuilt ones).
    run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], stage);
    for (const file of BUNDLE_FILES.filter((f) => !f.startsWith('dist/'))) cpSync(join(ROOT, file), join(stage, file), { recursive: true });
    if (node) copyNodePackage(node.dir, join(stage, 'node_modules', node.packageName));
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(bundleManifest(pkg, process.platform, process.arch, node), null, 2)}\n`);
    rmSync(join(stage, 'package-lock.json'));
    mkdirSync(outDir, { recursive: true });
    run('npm', ['pack', '--pack-destination', outDir, '--loglevel=warn'], stage);
    const bundle = join(outDir, bundleFileName(pkg, process.platform, process.arch, withNode));
    renameSync(join(outDir, `${pkg.name}-${pkg.version}.tgz`), bundle);
    return bundle;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: join(ROOT, 'dist') }, 'without-node': { type: 'boolean', default: false } } });
  const bundle = await buildBundle(resolve(values.out), !values['without-node'], process.env);
  console.log(`${bundle}\ninstall it where no registry is reachable with: ${INSTALL_COMMAND} ./${basename(bundle)}`);
}

main().catch((err: unknown) => {
  console.error(`npm run bundle: ${(err as Error).message}`);
  process.exitCode = 1;
});
