import { coversProject, matchesRelease, namesProject, parseRequirementList } from './requirements.js';
function parseRules(rules) {
    return {
        minReleaseAge: rules.minReleaseAge,
        unknown: rules.minReleaseAgeUnknown,
        deny: parseRequirementList(rules.deny),
        allow: parseRequirementList(rules.allow),
    };
}
/** `3d`, `12h`, `90m`, `45s`: as the setting is written. */
function ageText(ms) {
    for (const [unit, size] of [
        ['d', 86_400_000],
        ['h', 3_600_000],
        ['m', 60_000],
    ]) {
        if (ms % size === 0)
            return `${ms / size}${unit}`;
    }
    return `${Math.round(ms / 1000)}s`;
}
export class Policy {
    store;
    clock;
    rules;
    /** Bumped by every `update`: part of the stamp of filtered pages. */
    revision = 0;
    constructor(rules, store, clock) {
        this.store = store;
        this.clock = clock;
        this.rules = parseRules(rules);
    }
    /** Replaces the rules (SIGHUP); throws, keeping the old ones, when a list does not parse. */
    update(rules) {
        this.rules = parseRules(rules);
        this.revision++;
    }
    /** Whether any rule can hide anything; when none can, the policy source passes everything through. */
    get active() {
        return this.rules.minReleaseAge !== null || this.rules.deny.length > 0 || this.rules.allow.length > 0;
    }
    /** Whether whole projects may be hidden from the project list. */
    get filtersNames() {
        return this.rules.allow.length > 0 || this.rules.deny.some((r) => r.specifier === null);
    }
    /** Changes whenever a decision may change other than by the clock: the rules or the exemptions. */
    stamp() {
        return `${this.revision}.${this.store.generation()}`;
    }
    now() {
        return this.clock.now();
    }
    /** Why the whole project is refused (denied without a version, or not on the allow list); null when it is not. */
    projectRefusal(project) {
        const denied = this.rules.deny.find((r) => coversProject(r, project));
        if (denied)
            return { rule: 'deny', message: `${project} is refused by larder's deny list (${denied.text})` };
        if (this.rules.allow.length && !this.rules.allow.some((r) => namesProject(r, project))) {
            return { rule: 'allow-list', message: `${project} is not on larder's allow list (LARDER_ALLOW is set); ask the index's administrators to add it` };
        }
        return null;
    }
    /** Why one release is refused by the lists; null when it is not. */
    releaseRefusal(project, version) {
        const refusal = this.projectRefusal(project);
        if (refusal)
            return refusal;
        const label = `${project} ${version ?? '(unknown version)'}`;
        const denied = this.rules.deny.find((r) => matchesRelease(r, project, version));
        if (denied)
            return { rule: 'deny', message: `${label} is refused by larder's deny list (${denied.text})` };
        if (this.rules.allow.length && !this.rules.allow.some((r) => matchesRelease(r, project, version))) {
            return { rule: 'allow-list', message: `${label} is not on larder's allow list (LARDER_ALLOW is set)` };
        }
        return null;
    }
    /**
     * Why one upstream file is refused: the lists, then the cooldown (unless its release is exempted).
     * `uploadTime` is ISO 8601, or null when unknown.
     */
    fileRefusal(project, version, filename, uploadTime) {
        const listed = this.releaseRefusal(project, version);
        if (listed)
            return listed;
        const minAge = this.rules.minReleaseAge;
        if (minAge === null)
            return null;
        const uploaded = uploadTime === null ? NaN : Date.parse(uploadTime);
        if (Number.isNaN(uploaded)) {
            if (this.rules.unknown === 'allow' || this.exempt(project, version))
                return null;
            return {
                rule: 'unknown-upload-time',
                message: `${filename} has no known upload time and larder holds such files back (LARDER_MIN_RELEASE_AGE_UNKNOWN=deny)`,
            };
        }
        const visibleAt = uploaded + minAge;
        if (visibleAt <= this.clock.now() || this.exempt(project, version))
            return null;
        return {
            rule: 'cooldown',
            message: `${filename} was uploaded ${new Date(uploaded).toISOString()}, less than ${ageText(minAge)} ago (LARDER_MIN_RELEASE_AGE); it becomes available ${new Date(visibleAt).toISOString()}, or now with: larder policy allow ${project}==${version ?? '?'}`,
            visibleAt,
        };
    }
    /** Whether the cooldown applies at all and a file's upload time is needed. */
    get needsUploadTimes() {
        return this.rules.minReleaseAge !== null;
    }
    exempt(project, version) {
        return version !== null && this.store.getExemption(project, version) !== undefined;
    }
}
