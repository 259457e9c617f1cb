/** Which release a JSON API document describes. */
import type { Release } from './documents.js';
import { canonicalVersion, OrderedVersion } from './versions.js';

/** A release with its version parsed once, for choosing among or ordering many releases. */
export interface ParsedRelease {
  release: Release;
  version: OrderedVersion;
}

export function parsedReleases(releases: readonly Release[]): ParsedRelease[] {
  return releases.map((release) => ({ release, version: new OrderedVersion(release.version) }));
}

/** Warehouse's `is_prerelease` order: finals, then pre-releases, then versions it cannot parse (NULL). */
function kindRank(version: OrderedVersion): number {
  if (!version.valid) return 2;
  return version.prerelease ? 1 : 0;
}

/**
 * `/pypi/<p>/json`'s release (docs/index-api.md, "The JSON API"): the highest non-yanked final release, else the highest non-yanked
 * pre-release, else the same among yanked releases. Null when the project has no releases.
 */
export function latestRelease(releases: readonly Release[]): Release | null {
  return latestParsedRelease(parsedReleases(releases));
}

/** latestRelease of releases already parsed. */
export function latestParsedRelease(releases: readonly ParsedRelease[]): Release | null {
  let best: ParsedRelease | null = null;
  for (const candidate of releases) {
    if (best === null || ranksAbove(candidate, best)) best = candidate;
  }
  return best?.release ?? null;
}

function ranksAbove(a: ParsedRelease, b: ParsedRelease): boolean {
  if (a.release.yanked !== b.release.yanked) return !a.release.yanked;
  const kinds = kindRank(a.version) - kindRank(b.version);
  if (kinds !== 0) return kinds < 0;
  return a.version.compare(b.version) > 0;
}

/**
 * `/pypi/<p>/<v>/json`'s release: the exact version string, else the one release with the same
 * canonical version (`1.0` finds `1.0.0`). Null when none or several match.
 */
export function findRelease(releases: readonly Release[], version: string): Release | null {
  const exact = releases.find((release) => release.version === version);
  if (exact) return exact;
  const canonical = canonicalVersion(version);
  const matches = releases.filter((release) => canonicalVersion(release.version) === canonical);
  return matches.length === 1 ? matches[0]! : null;
}
