import { LarderError } from '../base/errors.js';
import { versionFromFilename } from '../model/filenames.js';
import { normalizeName } from '../model/names.js';
import { SourceDecorator } from '../index/sources/source-decorator.js';
const REFUSAL_CODES = {
    deny: 'policy_denied',
    'allow-list': 'policy_not_allowed',
    cooldown: 'policy_held_back',
    'unknown-upload-time': 'policy_held_back',
};
function refusalError(refusal) {
    return new LarderError(REFUSAL_CODES[refusal.rule], refusal.message);
}
export class PolicySource extends SourceDecorator {
    policy;
    audit;
    pages = new WeakMap();
    documents = new WeakMap();
    constructor(inner, policy, audit) {
        super(inner);
        this.policy = policy;
        this.audit = audit;
    }
    async listVersion() {
        return `${await this.inner.listVersion()} policy:${this.policy.stamp()}`;
    }
    async *listProjects() {
        if (!this.policy.filtersNames)
            return yield* this.inner.listProjects();
        for await (const batch of this.inner.listProjects()) {
            yield batch.filter((e) => this.policy.projectRefusal(e.normalized ?? normalizeName(e.name)) === null);
        }
    }
    checkProject(name) {
        const refusal = this.policy.projectRefusal(name);
        if (!refusal)
            return;
        this.audit.decided(refusal.rule, 'refused', name, null);
        throw refusalError(refusal);
    }
    async getProject(name, trace) {
        if (!this.policy.active)
            return this.inner.getProject(name, trace);
        this.checkProject(name);
        const page = await this.inner.getProject(name, trace);
        if (!page)
            return null;
        return this.filtered(this.pages, page, async () => {
            const times = await this.uploadTimes(name, page.files);
            const { kept, until } = this.keep(name, page.files, times);
            const versions = new Set(kept.map((f) => f.version));
            const withFiles = new Set(page.files.map((f) => f.version));
            const keptVersions = page.versions.filter((v) => versions.has(v) || (!withFiles.has(v) && !this.policy.releaseRefusal(name, v)));
            return { value: { ...page, files: kept, versions: keptVersions }, until };
        });
    }
    async getReleases(name, trace, forVersion) {
        if (!this.policy.active)
            return this.inner.getReleases(name, trace, forVersion);
        this.checkProject(name);
        const doc = await this.inner.getReleases(name, trace, forVersion);
        if (!doc)
            return null;
        return this.filtered(this.documents, doc, async () => {
            let until = Infinity;
            const releases = doc.releases.flatMap((release) => {
                if (!release.files.length)
                    return this.policy.releaseRefusal(name, release.version) ? [] : [release];
                const kept = this.keep(name, release.files, new Map());
                until = Math.min(until, kept.until);
                return kept.kept.length ? [{ ...release, files: kept.kept }] : [];
            });
            return { value: { ...doc, releases }, until };
        });
    }
    async openFile(name, filename, variant, trace) {
        if (!this.policy.active)
            return this.inner.openFile(name, filename, variant, trace);
        this.checkProject(name);
        const page = await this.inner.getProject(name);
        const file = page?.files.find((f) => f.filename === filename);
        const version = file ? file.version : versionFromFilename(filename);
        const refusal = file
            ? this.policy.fileRefusal(name, version, filename, (await this.uploadTimes(name, [file])).get(filename) ?? null)
            : this.policy.releaseRefusal(name, version);
        if (refusal) {
            this.audit.decided(refusal.rule, 'refused', name, version, filename);
            throw refusalError(refusal);
        }
        return this.inner.openFile(name, filename, variant, trace);
    }
    async filtered(memo, input, filter) {
        const stamp = this.policy.stamp();
        const known = memo.get(input);
        if (known && known.stamp === stamp && this.policy.now() < known.until)
            return known.value;
        const { value, until } = await filter();
        memo.set(input, { stamp, until, value });
        return value;
    }
    /** The files the policy lets through, and when the first held-back one becomes available. */
    keep(name, files, times) {
        let until = Infinity;
        const kept = files.filter((f) => {
            const uploadTime = f.uploadTime ?? times.get(f.filename) ?? null;
            if (uploadTime === null && this.policy.needsUploadTimes)
                this.audit.unknownUploadTime(name, f.filename);
            const refusal = this.policy.fileRefusal(name, f.version, f.filename, uploadTime);
            if (!refusal)
                return true;
            if (refusal.visibleAt !== undefined)
                until = Math.min(until, refusal.visibleAt);
            this.audit.decided(refusal.rule, 'hidden', name, f.version, f.filename);
            return false;
        });
        return { kept, until };
    }
    /**
     * Upload times the page lacks (an HTML page has none), from the JSON API document; only asked for while
     * the cooldown is on.
     */
    async uploadTimes(name, files) {
        const times = new Map();
        if (!this.policy.needsUploadTimes || files.every((f) => f.uploadTime !== null)) {
            for (const f of files)
                times.set(f.filename, f.uploadTime);
            return times;
        }
        const doc = await this.inner.getReleases(name).catch(() => null);
        for (const release of doc?.releases ?? [])
            for (const f of release.files)
                times.set(f.filename, f.uploadTime);
        for (const f of files)
            if (f.uploadTime !== null)
                times.set(f.filename, f.uploadTime);
        return times;
    }
}
