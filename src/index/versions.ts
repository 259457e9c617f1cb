/** PEP 440 versions, through @renovatebot/pep440. */
import * as pep440 from '@renovatebot/pep440';

export function isValidVersion(version: string): boolean {
  return pep440.valid(version) !== null;
}

export function isLocalVersion(version: string): boolean {
  const parsed = pep440.explain(version);
  return parsed !== null && parsed.local !== null && parsed.local !== undefined;
}

export function isPrerelease(version: string): boolean {
  const parsed = pep440.explain(version);
  return parsed !== null && (parsed.is_prerelease || parsed.is_devrelease);
}

/** Canonical form as `packaging.utils.canonicalize_version`: normalized, trailing `.0`s of the release dropped. */
export function canonicalVersion(version: string): string {
  const parsed = pep440.explain(version);
  if (!parsed) return version;
  const release = [...parsed.release];
  while (release.length > 1 && release[release.length - 1] === 0) release.pop();
  let out = parsed.epoch ? `${parsed.epoch}!` : '';
  out += release.join('.');
  if (parsed.pre) out += `${parsed.pre[0]}${parsed.pre[1]}`;
  if (parsed.post !== null && parsed.post !== undefined) out += `.post${parsed.post}`;
  if (parsed.dev !== null && parsed.dev !== undefined) out += `.dev${parsed.dev}`;
  if (parsed.local) out += `+${parsed.local}`;
  return out;
}

/** Normalized string form (`str(packaging.version.Version(v))`); the input unchanged if it is not PEP 440. */
export function normalizeVersion(version: string): string {
  return pep440.clean(version) ?? version;
}

/** Sorts ascending by PEP 440; versions that do not parse sort first, by string. */
export function compareVersions(a: string, b: string): number {
  const va = pep440.valid(a) !== null;
  const vb = pep440.valid(b) !== null;
  if (va && vb) return pep440.compare(a, b);
  if (va) return 1;
  if (vb) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
