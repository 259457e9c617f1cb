/** PEP 691 JSON project page (`application/vnd.pypi.simple.v1+json`) → ProjectPage. */
import { versionFromFilename } from '../model/filenames.js';
import { normalizeName } from '../model/names.js';
import { checkApiVersion, chooseSerial, cleanHashes, fallbackProjectName, projectStatusOf, requiresPythonOf, resolveFileUrl, versionsOfFiles, } from './simple-common.js';
import { isJsonObject, parseJsonText, sizeOrNull } from './json-util.js';
export function parseSimpleJson(text, options) {
    const where = `simple JSON page ${options.pageUrl}`;
    const doc = parseJsonText(text, where);
    if (!isJsonObject(doc))
        throw new Error(`${where}: expected a JSON object`);
    const meta = isJsonObject(doc.meta) ? doc.meta : {};
    checkApiVersion(meta['api-version'], where);
    if (!Array.isArray(doc.files))
        throw new Error(`${where}: "files" is missing or not an array`);
    const files = doc.files.map((raw, i) => parseFile(raw, `${where}: files[${i}]`, options.pageUrl));
    const displayName = typeof doc.name === 'string' && doc.name !== '' ? doc.name : fallbackProjectName(options);
    const status = isJsonObject(doc['project-status']) ? projectStatusOf(doc['project-status'].status, doc['project-status'].reason) : undefined;
    const versions = Array.isArray(doc.versions) ? [...new Set(doc.versions.filter((v) => typeof v === 'string'))] : versionsOfFiles(files);
    return {
        name: normalizeName(displayName),
        displayName,
        serial: chooseSerial(meta['_last-serial'], options.headerSerial),
        files,
        versions,
        ...(status ? { status } : {}),
        origin: 'upstream',
    };
}
function parseFile(raw, where, pageUrl) {
    if (!isJsonObject(raw))
        throw new Error(`${where}: expected an object, got ${JSON.stringify(raw)}`);
    const { filename, url } = raw;
    if (typeof filename !== 'string' || filename === '')
        throw new Error(`${where}: "filename" must be a non-empty string`);
    if (typeof url !== 'string')
        throw new Error(`${where} (${filename}): "url" must be a string`);
    const sourceUrl = resolveFileUrl(url, pageUrl);
    if (sourceUrl === null)
        throw new Error(`${where} (${filename}): unusable url ${JSON.stringify(url)}`);
    const yanked = raw.yanked === true || (typeof raw.yanked === 'string' && raw.yanked !== '');
    return {
        filename,
        version: versionFromFilename(filename),
        sourceUrl,
        hashes: isJsonObject(raw.hashes) ? cleanHashes(Object.entries(raw.hashes)) : {},
        requiresPython: requiresPythonOf(raw['requires-python']),
        yanked,
        yankedReason: yanked && typeof raw.yanked === 'string' ? raw.yanked : null,
        coreMetadata: coreMetadataOf(raw['core-metadata'] ?? raw['data-dist-info-metadata'] ?? raw['dist-info-metadata']),
        size: sizeOrNull(raw.size),
        uploadTime: typeof raw['upload-time'] === 'string' ? raw['upload-time'] : null,
        provenance: typeof raw.provenance === 'string' ? raw.provenance : null,
        hasSig: raw['gpg-sig'] === true,
    };
}
/** `true`/`false`, or a dict of hashes; an empty dict still says the file exists. */
export function coreMetadataOf(value) {
    if (value === true)
        return true;
    if (!isJsonObject(value))
        return false;
    const hashes = cleanHashes(Object.entries(value));
    return Object.keys(hashes).length > 0 ? hashes : true;
}
