/** Pieces the PEP 691 JSON and PEP 503 HTML project-page parsers share. */
import { compareVersions } from '../model/versions.js';
/** Links with any other scheme (`file:` above all) are dropped: larder fetches nothing else. */
const FILE_PROTOCOLS = new Set(['http:', 'https:']);
const PROJECT_STATUSES = new Set(['active', 'archived', 'quarantined', 'deprecated']);
const HASH_NAME = /^[a-z0-9_]+$/;
const HEX = /^[0-9a-f]+$/;
/** Absolute URL without its fragment, or null when `href` is not a usable file URL. */
export function resolveFileUrl(href, base) {
    let url;
    try {
        url = new URL(href, base);
    }
    catch {
        return null;
    }
    if (!FILE_PROTOCOLS.has(url.protocol))
        return null;
    url.hash = '';
    return url.href;
}
/** The last path segment of a URL, percent-decoded; '' when the path ends in `/`. */
export function filenameFromUrl(url) {
    const path = new URL(url).pathname;
    const last = path.slice(path.lastIndexOf('/') + 1);
    try {
        return decodeURIComponent(last);
    }
    catch {
        return last;
    }
}
/** Keeps `name → hex` pairs whose name and value look like a hash, lowercased. */
export function cleanHashes(pairs) {
    const hashes = {};
    for (const [rawName, rawValue] of pairs) {
        if (typeof rawValue !== 'string')
            continue;
        const name = rawName.toLowerCase();
        const value = rawValue.toLowerCase();
        if (HASH_NAME.test(name) && HEX.test(value))
            hashes[name] = value;
    }
    return hashes;
}
/** `""`, null and non-strings all mean "no Requires-Python". */
export function requiresPythonOf(value) {
    return typeof value === 'string' && value !== '' ? value : null;
}
export function projectStatusOf(status, reason) {
    const out = {};
    if (typeof status === 'string' && PROJECT_STATUSES.has(status))
        out.status = status;
    if (typeof reason === 'string')
        out.reason = reason;
    return out.status === undefined && out.reason === undefined ? undefined : out;
}
export function isSerial(value) {
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
/** The body's serial wins; then the header's; 0 when neither is known. */
export function chooseSerial(bodySerial, headerSerial) {
    if (isSerial(bodySerial))
        return bodySerial;
    if (isSerial(headerSerial))
        return headerSerial;
    return 0;
}
/** The name a page is about when it does not say: the requested one, else the URL's last path segment. */
export function fallbackProjectName(options) {
    if (options.projectName)
        return options.projectName;
    const segments = new URL(options.pageUrl).pathname.split('/').filter(Boolean);
    const last = segments.at(-1);
    if (!last)
        throw new Error(`cannot tell which project ${options.pageUrl} is about`);
    try {
        return decodeURIComponent(last);
    }
    catch {
        return last;
    }
}
/** Versions of the files, each once, in PEP 440 order. */
export function versionsOfFiles(files) {
    const versions = new Set();
    for (const file of files)
        if (file.version !== null)
            versions.add(file.version);
    return [...versions].sort(compareVersions);
}
/** Clients must refuse a major API version they do not know (PEP 629); this parser knows 1. */
export function checkApiVersion(version, where) {
    if (typeof version !== 'string')
        return;
    const major = Number.parseInt(version, 10);
    if (Number.isInteger(major) && major > 1) {
        throw new Error(`${where}: unsupported repository API version ${version} (this parser knows 1.x)`);
    }
}
