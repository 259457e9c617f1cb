/**
 * Warehouse's JSON API: `/pypi/<p>/json` → ProjectReleases, `/pypi/<p>/<v>/json` → one release.
 * The project document carries metadata (`info`) for one version only, the latest; every other
 * release gets a placeholder from `emptyMetadata` until its own document is fetched.
 */
import { versionFromFilename } from '../model/filenames.js';
import { normalizeName } from '../model/names.js';
import { compareVersions } from '../model/versions.js';
import { isJsonObject, parseJsonText, sizeOrNull, stringListOrNull, stringOrNull } from './json-util.js';
import { packageTypeOf, pythonVersionOf } from '../model/file-kind.js';
import { coreMetadataOf } from './parse-simple-json.js';
import { chooseSerial, cleanHashes, requiresPythonOf, resolveFileUrl } from './simple-common.js';
/** Metadata of a release whose core metadata is not known: name and version, everything else empty. */
export function emptyMetadata(name, version) {
    return {
        name,
        version,
        summary: null,
        description: null,
        description_content_type: null,
        author: null,
        author_email: null,
        maintainer: null,
        maintainer_email: null,
        license: null,
        license_expression: null,
        license_files: null,
        keywords: null,
        home_page: null,
        download_url: null,
        platform: null,
        requires_python: null,
        requires_dist: null,
        provides_extra: null,
        dynamic: null,
        classifiers: [],
        project_urls: null,
    };
}
/**
 * True for `emptyMetadata`'s placeholder: a release whose `info` this document did not carry.
 * (Warehouse's `info.description` is never null, so real upstream metadata never looks like this.)
 */
export function isPlaceholderMetadata(metadata) {
    const always = new Set(['name', 'version', 'classifiers']);
    return metadata.classifiers.length === 0 && Object.entries(metadata).every(([field, value]) => always.has(field) || value === null);
}
export function parseJsonApi(text, options) {
    const where = `JSON API document ${options.pageUrl}`;
    const doc = readDocument(text, where);
    const info = doc.info;
    const displayName = info.name;
    const infoVersion = info.version;
    const urls = fileList(doc.urls, `${where}: urls`, options.pageUrl, infoVersion);
    const byVersion = new Map();
    if (doc.releases === undefined) {
        byVersion.set(infoVersion, urls);
    }
    else {
        if (!isJsonObject(doc.releases))
            throw new Error(`${where}: "releases" is not an object`);
        for (const [version, files] of Object.entries(doc.releases)) {
            byVersion.set(version, fileList(files, `${where}: releases[${JSON.stringify(version)}]`, options.pageUrl, version));
        }
        if (!byVersion.has(infoVersion))
            byVersion.set(infoVersion, urls);
    }
    const releases = [...byVersion.keys()].sort(compareVersions).map((version) => {
        const files = byVersion.get(version);
        if (version === infoVersion)
            return releaseFromInfo(info, files);
        return { version, metadata: emptyMetadata(displayName, version), ...yankedFromFiles(files), files };
    });
    return {
        name: normalizeName(displayName),
        displayName,
        serial: chooseSerial(doc.last_serial, options.headerSerial),
        releases,
        vulnerabilities: { [infoVersion]: vulnerabilityList(doc.vulnerabilities, where) },
        ...ownershipOf(doc.ownership),
    };
}
export function parseReleaseJson(text, options) {
    const where = `JSON API document ${options.pageUrl}`;
    const doc = readDocument(text, where);
    const displayName = doc.info.name;
    const files = fileList(doc.urls, `${where}: urls`, options.pageUrl, doc.info.version);
    return {
        name: normalizeName(displayName),
        displayName,
        serial: chooseSerial(doc.last_serial, options.headerSerial),
        release: releaseFromInfo(doc.info, files),
        vulnerabilities: vulnerabilityList(doc.vulnerabilities, where),
    };
}
/** Metadata of the version `info` describes, as the JSON API names it. */
export function metadataFromInfo(info) {
    return {
        name: String(info.name),
        version: String(info.version),
        summary: stringOrNull(info.summary),
        description: stringOrNull(info.description),
        description_content_type: stringOrNull(info.description_content_type),
        author: stringOrNull(info.author),
        author_email: stringOrNull(info.author_email),
        maintainer: stringOrNull(info.maintainer),
        maintainer_email: stringOrNull(info.maintainer_email),
        license: stringOrNull(info.license),
        license_expression: stringOrNull(info.license_expression),
        license_files: stringListOrNull(info.license_files),
        keywords: stringOrNull(info.keywords),
        home_page: stringOrNull(info.home_page),
        download_url: stringOrNull(info.download_url),
        platform: stringOrNull(info.platform),
        requires_python: requiresPythonOf(info.requires_python),
        requires_dist: stringListOrNull(info.requires_dist),
        provides_extra: stringListOrNull(info.provides_extra),
        dynamic: stringListOrNull(info.dynamic),
        classifiers: stringListOrNull(info.classifiers) ?? [],
        project_urls: projectUrlsOf(info.project_urls),
    };
}
function readDocument(text, where) {
    const doc = parseJsonText(text, where);
    if (!isJsonObject(doc))
        throw new Error(`${where}: expected a JSON object`);
    const { info } = doc;
    if (!isJsonObject(info))
        throw new Error(`${where}: "info" is missing or not an object`);
    if (typeof info.name !== 'string' || info.name === '')
        throw new Error(`${where}: "info.name" must be a non-empty string`);
    if (typeof info.version !== 'string' || info.version === '') {
        throw new Error(`${where}: "info.version" must be a non-empty string`);
    }
    return doc;
}
function releaseFromInfo(info, files) {
    const yanked = info.yanked === true;
    return {
        version: info.version,
        metadata: metadataFromInfo(info),
        yanked,
        yankedReason: yanked ? stringOrNull(info.yanked_reason) || null : null,
        files,
    };
}
/** PyPI yanks whole releases, so a release is yanked when all its files are. */
function yankedFromFiles(files) {
    const yanked = files.length > 0 && files.every((file) => file.yanked);
    return { yanked, yankedReason: yanked ? (files.find((file) => file.yankedReason)?.yankedReason ?? null) : null };
}
function fileList(value, where, pageUrl, releaseVersion) {
    if (value === undefined)
        return [];
    if (!Array.isArray(value))
        throw new Error(`${where}: expected an array of files`);
    return value.map((raw, i) => releaseFile(raw, `${where}[${i}]`, pageUrl, releaseVersion));
}
function releaseFile(raw, where, pageUrl, releaseVersion) {
    if (!isJsonObject(raw))
        throw new Error(`${where}: expected an object`);
    const { filename, url } = raw;
    if (typeof filename !== 'string' || filename === '')
        throw new Error(`${where}: "filename" must be a non-empty string`);
    if (typeof url !== 'string')
        throw new Error(`${where} (${filename}): "url" must be a string`);
    const sourceUrl = resolveFileUrl(url, pageUrl);
    if (sourceUrl === null)
        throw new Error(`${where} (${filename}): unusable url ${JSON.stringify(url)}`);
    const digests = isJsonObject(raw.digests) ? raw.digests : {};
    const hashes = cleanHashes(Object.entries(digests));
    if (hashes.md5 === undefined)
        Object.assign(hashes, cleanHashes([['md5', raw.md5_digest]]));
    const yanked = raw.yanked === true;
    return {
        filename,
        version: versionFromFilename(filename) ?? releaseVersion,
        sourceUrl,
        hashes,
        requiresPython: requiresPythonOf(raw.requires_python),
        yanked,
        yankedReason: yanked ? stringOrNull(raw.yanked_reason) || null : null,
        coreMetadata: coreMetadataOf(raw['core-metadata']),
        size: sizeOrNull(raw.size),
        uploadTime: uploadTimeOf(raw),
        hasSig: raw.has_sig === true,
        packagetype: typeof raw.packagetype === 'string' ? raw.packagetype : packageTypeOf(filename),
        pythonVersion: typeof raw.python_version === 'string' ? raw.python_version : pythonVersionOf(filename),
        comment: stringOrNull(raw.comment_text),
    };
}
/** `upload_time_iso_8601`, else the zone-less `upload_time` (which is UTC) with a `Z`. */
function uploadTimeOf(raw) {
    if (typeof raw.upload_time_iso_8601 === 'string')
        return raw.upload_time_iso_8601;
    if (typeof raw.upload_time === 'string')
        return /[zZ]|[+-]\d\d:?\d\d$/.test(raw.upload_time) ? raw.upload_time : `${raw.upload_time}Z`;
    return null;
}
function projectUrlsOf(value) {
    if (!isJsonObject(value))
        return null;
    const urls = {};
    for (const [label, url] of Object.entries(value))
        if (typeof url === 'string')
            urls[label] = url;
    return Object.keys(urls).length > 0 ? urls : null;
}
function vulnerabilityList(value, where) {
    if (value === undefined || value === null)
        return [];
    if (!Array.isArray(value))
        throw new Error(`${where}: "vulnerabilities" is not an array`);
    return value.filter(isJsonObject).map((v) => ({
        id: String(v.id ?? ''),
        source: String(v.source ?? ''),
        link: String(v.link ?? ''),
        aliases: stringListOrNull(v.aliases) ?? [],
        details: String(v.details ?? ''),
        summary: stringOrNull(v.summary),
        fixed_in: stringListOrNull(v.fixed_in) ?? [],
        withdrawn: stringOrNull(v.withdrawn),
    }));
}
function ownershipOf(value) {
    if (!isJsonObject(value) || !Array.isArray(value.roles))
        return {};
    const roles = value.roles
        .filter(isJsonObject)
        .filter((r) => (r.role === 'Owner' || r.role === 'Maintainer') && typeof r.user === 'string')
        .map((r) => ({ role: r.role, user: r.user }));
    return { ownership: { roles, organization: stringOrNull(value.organization) } };
}
