import { compareCodePoints, toWireJson } from './json-wire.js';
import { latestRelease, findRelease } from '../model/release-choice.js';
import { coreMetadata } from './simple-fields.js';
import { isoUploadTime, naiveUploadTime } from './timestamps.js';
import { fileUrl, projectUrl, releaseUrl } from './urls.js';
const NO_DOWNLOADS = { last_day: -1, last_month: -1, last_week: -1 };
/** The project document, describing the latest release; null when the project has no releases (404). */
export function renderProjectJson(doc, base) {
    const release = latestRelease(doc.releases);
    return release && renderDocument(doc, release, base, true);
}
/** The document of one release, found by exact or canonical version; null when none matches (404). */
export function renderReleaseJson(doc, version, base) {
    const release = findRelease(doc.releases, version);
    return release && renderDocument(doc, release, base, false);
}
function renderDocument(doc, release, base, isProjectDoc) {
    const releases = {};
    for (const each of doc.releases)
        releases[each.version] = filesJson(doc, each, base);
    return toWireJson({
        info: infoJson(doc, release, base, isProjectDoc),
        last_serial: doc.serial,
        releases,
        urls: filesJson(doc, release, base),
        vulnerabilities: doc.vulnerabilities?.[release.version] ?? [],
        ownership: doc.ownership && {
            roles: [...doc.ownership.roles].sort((a, b) => Number(a.role !== 'Owner') - Number(b.role !== 'Owner') || compareCodePoints(a.user, b.user)),
            organization: doc.ownership.organization,
        },
    });
}
function infoJson(doc, release, base, isProjectDoc) {
    const meta = release.metadata;
    const info = {
        author: meta.author ?? '',
        author_email: meta.author_email ?? '',
        bugtrack_url: '',
        classifiers: meta.classifiers ?? [],
        description: meta.description ?? '',
        description_content_type: meta.description_content_type || null,
        docs_url: null,
        download_url: meta.download_url ?? '',
        downloads: NO_DOWNLOADS,
        dynamic: listOrNull(meta.dynamic),
        home_page: meta.home_page ?? '',
        keywords: meta.keywords ?? '',
        license: meta.license ?? '',
        license_expression: meta.license_expression || null,
        license_files: listOrNull(meta.license_files),
        maintainer: meta.maintainer,
        maintainer_email: meta.maintainer_email,
        name: doc.displayName,
        package_url: projectUrl(base, doc.name),
        platform: meta.platform ?? '',
        project_url: projectUrl(base, doc.name),
        provides_extra: listOrNull(meta.provides_extra),
        release_url: releaseUrl(base, doc.name, release.version),
        requires_dist: listOrNull(meta.requires_dist),
        requires_python: meta.requires_python || null,
        summary: meta.summary ?? '',
        version: release.version,
        yanked: release.yanked,
        yanked_reason: release.yanked ? release.yankedReason || null : null,
    };
    if (isProjectDoc)
        info.project_urls = meta.project_urls ?? {};
    return info;
}
function listOrNull(list) {
    return list && list.length > 0 ? list : null;
}
function filesJson(doc, release, base) {
    return [...release.files].sort((a, b) => compareCodePoints(a.filename, b.filename)).map((file) => fileJson(doc, release, file, base));
}
function fileJson(doc, release, file, base) {
    const yanked = release.yanked || file.yanked;
    const md5 = file.hashes.md5 ?? null;
    return {
        comment_text: file.comment ?? '',
        'core-metadata': coreMetadata(file),
        digests: { blake2b_256: file.hashes.blake2b_256 ?? null, md5, sha256: file.hashes.sha256 ?? null },
        downloads: -1,
        filename: file.filename,
        has_sig: file.hasSig,
        md5_digest: md5,
        packagetype: file.packagetype,
        python_version: file.pythonVersion,
        requires_python: file.requiresPython || null,
        size: file.size ?? null,
        upload_time: naiveUploadTime(file.uploadTime),
        upload_time_iso_8601: isoUploadTime(file.uploadTime),
        url: fileUrl(base, doc.name, file.filename),
        yanked,
        yanked_reason: yanked ? file.yankedReason || release.yankedReason || null : null,
    };
}
