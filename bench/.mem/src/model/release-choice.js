import { canonicalVersion, compareVersions, isPrerelease, isValidVersion } from './versions.js';
/** Warehouse's `is_prerelease` order: finals, then pre-releases, then versions it cannot parse (NULL). */
function kindRank(version) {
    if (!isValidVersion(version))
        return 2;
    return isPrerelease(version) ? 1 : 0;
}
/**
 * `/pypi/<p>/json`'s release (docs/index-api.md, "The JSON API"): the highest non-yanked final release, else the highest non-yanked
 * pre-release, else the same among yanked releases. Null when the project has no releases.
 */
export function latestRelease(releases) {
    let best = null;
    for (const release of releases) {
        if (best === null || ranksAbove(release, best))
            best = release;
    }
    return best;
}
function ranksAbove(a, b) {
    if (a.yanked !== b.yanked)
        return !a.yanked;
    const kinds = kindRank(a.version) - kindRank(b.version);
    if (kinds !== 0)
        return kinds < 0;
    return compareVersions(a.version, b.version) > 0;
}
/**
 * `/pypi/<p>/<v>/json`'s release: the exact version string, else the one release with the same
 * canonical version (`1.0` finds `1.0.0`). Null when none or several match.
 */
export function findRelease(releases, version) {
    const exact = releases.find((release) => release.version === version);
    if (exact)
        return exact;
    const canonical = canonicalVersion(version);
    const matches = releases.filter((release) => canonicalVersion(release.version) === canonical);
    return matches.length === 1 ? matches[0] : null;
}
