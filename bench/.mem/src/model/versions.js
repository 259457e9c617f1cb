/** PEP 440 versions, through @renovatebot/pep440. */
import * as pep440 from '@renovatebot/pep440';
export function isValidVersion(version) {
    return pep440.valid(version) !== null;
}
export function isLocalVersion(version) {
    const parsed = pep440.explain(version);
    return parsed !== null && parsed.local !== null && parsed.local !== undefined;
}
export function isPrerelease(version) {
    const parsed = pep440.explain(version);
    return parsed !== null && (parsed.is_prerelease || parsed.is_devrelease);
}
/**
 * `str(packaging.version.Version(v))`, or null when `v` is not PEP 440. (pep440's own `clean` writes
 * local segments with commas, so the string is built from the parsed parts.)
 */
export function pep440String(version, dropTrailingZeros = false) {
    if (pep440.valid(version) === null)
        return null;
    const v = pep440.parse(version);
    if (!v)
        return null;
    const release = [...v.release];
    if (dropTrailingZeros)
        while (release.length > 1 && release[release.length - 1] === 0)
            release.pop();
    let out = v.epoch ? `${v.epoch}!` : '';
    out += release.join('.');
    if (v.pre)
        out += `${v.pre[0]}${v.pre[1]}`;
    if (v.post)
        out += `.post${v.post[1]}`;
    if (v.dev)
        out += `.dev${v.dev[1]}`;
    if (v.local)
        out += `+${v.local.join('.')}`;
    return out;
}
/** Canonical form as `packaging.utils.canonicalize_version`: normalized, trailing `.0`s of the release dropped. */
export function canonicalVersion(version) {
    return pep440String(version, true) ?? version;
}
/** Normalized string form; the input unchanged if it is not PEP 440. */
export function normalizeVersion(version) {
    return pep440String(version) ?? version;
}
/** Sorts ascending by PEP 440; versions that do not parse sort first, by string. */
export function compareVersions(a, b) {
    const va = pep440.valid(a) !== null;
    const vb = pep440.valid(b) !== null;
    if (va && vb)
        return pep440.compare(a, b);
    if (va)
        return 1;
    if (vb)
        return -1;
    return a < b ? -1 : a > b ? 1 : 0;
}
