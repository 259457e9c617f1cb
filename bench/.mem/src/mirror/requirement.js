/**
 * What a mirror set is asked for: requirements to expand (from requirements files, and every
 * `Requires-Dist` met on the way) and locked packages to take as they are (from lock files).
 * PEP 508 strings are parsed by `pip-requirements-js`.
 */
import { parsePipRequirementsLine } from 'pip-requirements-js';
import { normalizeName } from '../model/names.js';
export class InputError extends Error {
}
/** Parses one PEP 508 requirement; throws an InputError naming `origin`. URL requirements return null. */
export function parseRequirement(text, origin, hashes = []) {
    let parsed;
    try {
        parsed = parsePipRequirementsLine(text);
    }
    catch (err) {
        throw new InputError(`${origin}: cannot parse '${text}': ${err.message.replace(/^Failed to parse requirements? (file|line)\. /, '')}`);
    }
    if (parsed?.type !== 'ProjectName')
        return null;
    return {
        name: normalizeName(parsed.name),
        specifier: (parsed.versionSpec ?? []).map((s) => `${s.operator}${s.version}`).join(','),
        extras: (parsed.extras ?? []).map((e) => normalizeName(e)),
        marker: parsed.environmentMarkerTree,
        hashes,
        origin,
    };
}
/** The marker tree of a bare PEP 508 marker string (as lock files write them). */
export function parseMarker(marker, origin) {
    if (!marker.trim())
        return undefined;
    return parseRequirement(`placeholder ; ${marker}`, origin)?.marker;
}
/** The file name at the end of a URL, decoded (`…/requests-2.31.0-py3-none-any.whl#sha256=…`). */
export function filenameOfUrl(url) {
    const path = url.split(/[?#]/, 1)[0];
    return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
}
