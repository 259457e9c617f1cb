/** Project name rules of PEP 503 and the core-metadata spec. */
const VALID_NAME = /^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$/i;
/** Longest project name accepted from a client. */
export const MAX_NAME_LENGTH = 200;
/** Longest version or file name accepted from a client, in UTF-8 bytes (LMDB keys hold at most ~1,978). */
export const MAX_SEGMENT_BYTES = 255;
export function isValidProjectName(name) {
    // `$` in JS never matches before a trailing newline (unlike Python's), so this equals the spec's `\Z`.
    return VALID_NAME.test(name);
}
export function normalizeName(name) {
    return name.replace(/[-_.]+/g, '-').toLowerCase();
}
export function isNormalized(name) {
    return normalizeName(name) === name;
}
/** The form a wheel or PEP 625 sdist filename uses for a project name: normalized, `-` written `_`. */
export function filenameProjectPart(name) {
    return normalizeName(name).replace(/-/g, '_');
}
