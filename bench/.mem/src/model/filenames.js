/** Distribution filenames: wheels (binary distribution format spec) and sdists (PEP 625 and legacy). */
export const SDIST_EXTENSIONS = ['.tar.gz', '.zip'];
export function parseWheelFilename(filename) {
    if (!filename.endsWith('.whl'))
        return null;
    const parts = filename.slice(0, -4).split('-');
    if (parts.length !== 5 && parts.length !== 6)
        return null;
    const [name, version] = parts;
    const build = parts.length === 6 ? parts[2] : null;
    const [py, abi, plat] = parts.slice(-3);
    if (!name || !version || !py || !abi || !plat)
        return null;
    if (build !== null && !/^\d/.test(build))
        return null;
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
export function parseSdistFilename(filename) {
    const extension = SDIST_EXTENSIONS.find((ext) => filename.endsWith(ext));
    if (!extension)
        return null;
    const stem = filename.slice(0, -extension.length);
    for (let i = stem.lastIndexOf('-'); i > 0; i = stem.lastIndexOf('-', i - 1)) {
        const version = stem.slice(i + 1);
        if (/^v?\d/i.test(version))
            return { kind: 'sdist', name: stem.slice(0, i), version, extension };
    }
    return null;
}
export function parseDistFilename(filename) {
    return parseWheelFilename(filename) ?? parseSdistFilename(filename);
}
/** The version a distribution filename carries (also for legacy eggs and installers), or null. */
export function versionFromFilename(filename) {
    const parsed = parseDistFilename(filename);
    if (parsed)
        return parsed.version;
    const legacy = /^[^-]+-([^-]+?)(?:-[^-]+)*\.(?:egg|exe|msi|tar\.bz2|tgz|tar)$/i.exec(filename);
    return legacy ? legacy[1] : null;
}
/** `application/...` type to send a distribution file with. */
export function contentTypeFor(filename) {
    if (filename.endsWith('.whl') || filename.endsWith('.zip') || filename.endsWith('.egg'))
        return 'application/zip';
    if (filename.endsWith('.tar.gz') || filename.endsWith('.tgz'))
        return 'application/x-tar';
    return 'application/octet-stream';
}
