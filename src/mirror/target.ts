/**
 * A mirror target: one Python version on one wheel platform (`3.11` on `manylinux_2_17_x86_64`), and the
 * PEP 508 marker environment such an interpreter reports.
 */

export interface Target {
  /** `3.11` or `3.11.4`. */
  python: string;
  /** A wheel platform tag as in filenames. */
  platform: string;
}

export type MarkerEnvironment = Record<string, string>;

export const targetLabel = (t: Target): string => `${t.python}/${t.platform}`;

/** `3.11` → [3, 11, 0]. */
export function pythonParts(python: string): [number, number, number] {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(python);
  if (!m) throw new Error(`'${python}' is not a Python version such as 3.11 or 3.11.4`);
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

/** The platform tag's operating system and machine, as `sys.platform`, `platform.system()` etc. report them. */
function platformFacts(platform: string): { sys: string; system: string; os: string; machine: string } {
  const linux = /^(?:manylinux_\d+_\d+|musllinux_\d+_\d+|manylinux\d+|linux)_(.+)$/.exec(platform);
  if (linux) return { sys: 'linux', system: 'Linux', os: 'posix', machine: linux[1]! };
  const mac = /^macosx_\d+_\d+_(.+)$/.exec(platform);
  if (mac) {
    const arch = mac[1]!;
    return { sys: 'darwin', system: 'Darwin', os: 'posix', machine: arch === 'arm64' ? 'arm64' : 'x86_64' };
  }
  if (platform === 'win_amd64') return { sys: 'win32', system: 'Windows', os: 'nt', machine: 'AMD64' };
  if (platform === 'win32') return { sys: 'win32', system: 'Windows', os: 'nt', machine: 'x86' };
  if (platform === 'win_arm64') return { sys: 'win32', system: 'Windows', os: 'nt', machine: 'ARM64' };
  throw new Error(
    `'${platform}' is not a wheel platform tag larder knows (manylinux_X_Y_ARCH, musllinux_X_Y_ARCH, macosx_X_Y_ARCH, win_amd64, win32, win_arm64)`,
  );
}

/** The `sys.platform` a wheel platform tag is built for; null for `any` and tags larder does not know. */
export function platformSys(platform: string): string | null {
  try {
    return platformFacts(platform).sys;
  } catch {
    return null;
  }
}

/** Checks a target's python and platform; throws with a one-line reason. */
export function checkTarget(t: Target): void {
  pythonParts(t.python);
  platformFacts(t.platform);
}

/** The environment markers of CPython `python` on `platform` (platform_release and platform_version are unknown: empty). */
export function markerEnvironment(t: Target): MarkerEnvironment {
  const [major, minor, micro] = pythonParts(t.python);
  const facts = platformFacts(t.platform);
  const full = `${major}.${minor}.${micro}`;
  return {
    python_version: `${major}.${minor}`,
    python_full_version: full,
    implementation_name: 'cpython',
    implementation_version: full,
    platform_python_implementation: 'CPython',
    sys_platform: facts.sys,
    platform_system: facts.system,
    os_name: facts.os,
    platform_machine: facts.machine,
    platform_release: '',
    platform_version: '',
  };
}
