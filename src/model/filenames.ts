/** Distribution filenames: wheels (binary distribution format spec) and sdists (PEP 625 and legacy). */

export interface WheelFilename {
  kind: 'wheel';
  name: string;
  version: string;
  build: string | null;
  pythonTags: string[];
  abiTags: string[];
  platformTags: string[];
}

export interface SdistFilename {
  kind: 'sdist';
  name: string;
  version: string;
  extension: '.tar.gz' | '.zip';
}

export type DistFilename = WheelFilename | SdistFilename;

export const SDIST_EXTENSIONS = ['.tar.gz', '.zip'] as const;

export function parseWheelFilename(filename: string): WheelFilename | null {
  if (!filename.endsWith('.whl')) return null;
  const parts = filename.slice(0, -4).split('-');
  if (parts.length !== 5 && parts.length !== 6) return null;
  const [name, version] = parts as [string, string];
  const build = parts.length === 6 ? parts[2]! : null;
  const [py, abi, plat] = parts.slice(-3) as [string, string, string];
  if (!name || !version || !py || !abi || !plat) return null;
  if (build !== null && !/^\d/.test(build)) return null;
  return {
    kind: 'wheel',
    name,
    version,
    build,
    pythonTags: py.split('.'),
    abiTags: abi.split('.'),
    platformTags: plat.split('.'),
  };
}

/**
 * Splits `<name>-<version>.<ext>`. The name may itself contain `-` (legacy sdists), so the version is
 * the part after the last `-` that starts with a digit (or `v`).
 */
export function parseSdistFilename(filename: string): SdistFilename | null {
  const extension = SDIST_EXTENSIONS.find((ext) => filename.endsWith(ext));
  if (!extension) return null;
  const stem = filename.slice(0, -extension.length);
  for (let i = stem.lastIndexOf('-'); i > 0; i = stem.lastIndexOf('-', i - 1)) {
    const version = stem.slice(i + 1);
    if (/^v?\d/i.test(version)) return { kind: 'sdist', name: stem.slice(0, i), version, extension };
  }
  return null;
}

export function parseDistFilename(filename: string): DistFilename | null {
  return parseWheelFilename(filename) ?? parseSdistFilename(filename);
}

/** The version a distribution filename carries (also for legacy eggs and installers), or null. */
export function versionFromFilename(filename: string): string | null {
  const parsed = parseDistFilename(filename);
  if (parsed) return parsed.version;
  const legacy = /^[^-]+-([^-]+?)(?:-[^-]+)*\.(?:egg|exe|msi|tar\.bz2|tgz|tar)$/i.exec(filename);
  return legacy ? legacy[1]! : null;
}

/** `application/...` type to send a distribution file with. */
export function contentTypeFor(filename: string): string {
  if (filename.endsWith('.whl') || filename.endsWith('.zip') || filename.endsWith('.egg')) return 'application/zip';
  if (filename.endsWith('.tar.gz') || filename.endsWith('.tgz')) return 'application/x-tar';
  return 'application/octet-stream';
}

/** The name a client asks for: the distribution's, with `.metadata` or `.asc` for its companions. */
export function requestedName(filename: string, variant: 'file' | 'metadata' | 'signature'): string {
  return variant === 'file' ? filename : `${filename}${variant === 'metadata' ? '.metadata' : '.asc'}`;
}
