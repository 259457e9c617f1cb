/**
 * The text fields of a legacy upload: sanitising (Warehouse `decorators.sanitize`) and the mapping of the
 * legacy form names to core metadata (Warehouse `forklift/metadata.py` `_FORM_TO_RAW_MAPPING`).
 */
import { LarderError } from '../base/errors.js';
/** Fields that are not core metadata but steer the upload. */
export const CONTROL_FIELDS = [
    ':action',
    'protocol_version',
    'filetype',
    'pyversion',
    'comment',
    'md5_digest',
    'sha256_digest',
    'blake2_256_digest',
    'attestations',
];
/** Single-use core metadata fields, by their legacy form names. */
export const SINGLE_METADATA_FIELDS = [
    'metadata_version',
    'name',
    'version',
    'summary',
    'description',
    'description_content_type',
    'keywords',
    'home_page',
    'download_url',
    'author',
    'author_email',
    'maintainer',
    'maintainer_email',
    'license',
    'license_expression',
    'requires_python',
];
/** Multiple-use core metadata fields: the form repeats the key once per value. */
export const MULTI_METADATA_FIELDS = [
    'classifiers',
    'platform',
    'supported_platform',
    'requires_dist',
    'provides_dist',
    'obsoletes_dist',
    'requires_external',
    'requires',
    'provides',
    'obsoletes',
    'provides_extra',
    'dynamic',
    'license_file',
    'import_name',
    'import_namespace',
    'project_urls',
];
const SINGLE = new Set([...CONTROL_FIELDS, ...SINGLE_METADATA_FIELDS]);
const MULTI = new Set(MULTI_METADATA_FIELDS);
/** One value as Warehouse sanitises it: `UNKNOWN` (after stripping) is dropped, NUL becomes the text `\x00`. */
export function sanitizeValue(value) {
    if (value.trim() === 'UNKNOWN')
        return null;
    return value.replaceAll('\0', '\\x00');
}
/**
 * Sanitises every field and keeps only the known legacy names; anything else (hyphenated names such as
 * `Description-Content-Type` or `project-url`, unknown keys) is ignored. Empty values count as not sent.
 * A single-use field sent more than once with different values is refused rather than silently picking one.
 */
export function parseUploadForm(fields) {
    const form = { single: {}, multi: {} };
    for (const [key, rawValues] of Object.entries(fields)) {
        const isSingle = SINGLE.has(key);
        if (!isSingle && !MULTI.has(key))
            continue;
        const values = rawValues.map(sanitizeValue).filter((v) => v !== null);
        if (values.length === 0 || (values.length === 1 && values[0] === ''))
            continue;
        if (isSingle) {
            const distinct = new Set(values);
            if (distinct.size > 1) {
                throw new LarderError('repeated_field', `Field '${key}' was sent more than once with different values.`);
            }
            form.single[key] = values[0];
        }
        else {
            const present = values.filter((v) => v !== '');
            if (present.length > 0)
                form.multi[key] = present;
        }
    }
    return form;
}
const CORE_METADATA_HELP = 'See https://packaging.python.org/specifications/core-metadata for more information.';
/**
 * `Label, URL` pairs split at the first comma, both sides stripped (as `packaging.metadata` does);
 * a value without a comma is a label with an empty URL. A label used twice is an error.
 */
export function parseProjectUrls(values) {
    if (values.length === 0)
        return null;
    const urls = {};
    for (const value of values) {
        const comma = value.indexOf(',');
        const label = (comma === -1 ? value : value.slice(0, comma)).trim();
        const url = comma === -1 ? '' : value.slice(comma + 1).trim();
        if (Object.hasOwn(urls, label)) {
            throw new LarderError('invalid_metadata', `'project_urls' has invalid data (duplicate label '${label}'). ${CORE_METADATA_HELP}`);
        }
        urls[label] = url;
    }
    return urls;
}
const nonEmpty = (values) => (values && values.length > 0 ? values : null);
/** The release metadata an upload's form describes, shaped like the JSON API's `info`. */
export function toReleaseMetadata(form) {
    const s = form.single;
    const m = form.multi;
    return {
        name: s.name ?? '',
        version: s.version ?? '',
        summary: s.summary ?? null,
        description: s.description ?? null,
        description_content_type: s.description_content_type ?? null,
        author: s.author ?? null,
        author_email: s.author_email ?? null,
        maintainer: s.maintainer ?? null,
        maintainer_email: s.maintainer_email ?? null,
        license: s.license ?? null,
        license_expression: s.license_expression ?? null,
        license_files: nonEmpty(m.license_file),
        keywords: s.keywords ?? null,
        home_page: s.home_page ?? null,
        download_url: s.download_url ?? null,
        platform: m.platform?.[0] ?? null,
        requires_python: s.requires_python ?? null,
        requires_dist: nonEmpty(m.requires_dist),
        provides_extra: nonEmpty(m.provides_extra),
        dynamic: nonEmpty(m.dynamic),
        classifiers: m.classifiers ?? [],
        project_urls: parseProjectUrls(m.project_urls ?? []),
    };
}
