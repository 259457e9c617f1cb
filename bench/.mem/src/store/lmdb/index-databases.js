import { after } from './environment.js';
const SERIAL_KEY = 'serial';
export class IndexDatabases {
    root;
    projects;
    releases;
    files;
    /** [project, filename] → when it was removed. */
    deleted;
    users;
    tokens;
    changelog;
    counters;
    allowedNames;
    constructor(root) {
        this.root = root;
        this.projects = root.openDB({ name: 'projects' });
        this.releases = root.openDB({ name: 'releases' });
        this.files = root.openDB({ name: 'files' });
        this.deleted = root.openDB({ name: 'deleted-files' });
        this.users = root.openDB({ name: 'users' });
        this.tokens = root.openDB({ name: 'tokens' });
        this.changelog = root.openDB({ name: 'changelog' });
        this.counters = root.openDB({ name: 'counters' });
        this.allowedNames = root.openDB({ name: 'allowed-names' });
    }
    lastSerial() {
        return this.counters.get(SERIAL_KEY) ?? 0;
    }
    /** Inside a transaction: takes the next serial and records what changed under it. */
    recordChange(project, action, user, version = null, filename = null) {
        const serial = this.lastSerial() + 1;
        this.counters.putSync(SERIAL_KEY, serial);
        this.changelog.putSync(serial, { serial, project, version, filename, action, user, time: new Date().toISOString() });
        const record = this.projects.get(project);
        if (record)
            this.projects.putSync(project, { ...record, serial });
        return serial;
    }
    getProject(name) {
        return this.projects.get(name);
    }
    *listProjects() {
        for (const { value } of this.projects.getRange())
            yield value;
    }
    projectCount() {
        return this.projects.getCount();
    }
    getReleases(project) {
        return Array.from(this.releases.getRange({ start: [project], end: after(project) }), ({ value }) => value);
    }
    getRelease(project, version) {
        return this.releases.get([project, version]);
    }
    getFiles(project) {
        return Array.from(this.files.getRange({ start: [project], end: after(project) }), ({ value }) => value);
    }
    getFile(project, filename) {
        return this.files.get([project, filename]);
    }
    isFilenameDeleted(project, filename) {
        return this.deleted.get([project, filename]) !== undefined;
    }
    *allFiles() {
        for (const { value } of this.files.getRange())
            yield value;
    }
    changesSince(serial) {
        return Array.from(this.changelog.getRange({ start: serial + 1 }), ({ value }) => value);
    }
    getUser(name) {
        return this.users.get(name);
    }
    listUsers() {
        return Array.from(this.users.getRange(), ({ value }) => value);
    }
    getTokenByHash(hash) {
        return this.tokens.get(hash);
    }
    listTokens(user) {
        return Array.from(this.tokens.getRange(), ({ value }) => value).filter((t) => !user || t.user === user);
    }
    isNameAllowed(name) {
        return this.allowedNames.get(name) !== undefined;
    }
    // Single-record writes: only inside a write transaction.
    addProject(record) {
        this.projects.putSync(record.name, { ...record, serial: 0 });
        this.recordChange(record.name, 'create project', null);
    }
    addRelease(record) {
        this.releases.putSync([record.project, record.version], record);
    }
    addFile(record) {
        this.files.putSync([record.project, record.filename], record);
        this.recordChange(record.project, 'add file', null, record.version, record.filename);
    }
    reserveFilename(record) {
        this.deleted.putSync([record.project, record.filename], record.deletedAt);
    }
    putAllowedName(record) {
        this.allowedNames.putSync(record.name, { by: record.by, at: record.at });
    }
    putUser(user) {
        this.users.putSync(user.name, user);
    }
    putToken(token) {
        this.tokens.putSync(token.hash, token);
    }
    /** Every record as seen by `transaction`. */
    snapshotOf(transaction) {
        const values = function* (db) {
            for (const { value } of db.getRange({ transaction }))
                yield value;
        };
        const { deleted, allowedNames } = this;
        return {
            projects: () => values(this.projects),
            releases: () => values(this.releases),
            files: () => values(this.files),
            users: () => values(this.users),
            tokens: () => values(this.tokens),
            changelog: () => values(this.changelog),
            *deletedFilenames() {
                for (const { key, value } of deleted.getRange({ transaction })) {
                    const [project, filename] = key;
                    yield { project, filename, deletedAt: value };
                }
            },
            *allowedNames() {
                for (const { key, value } of allowedNames.getRange({ transaction }))
                    yield { name: key, by: value.by, at: value.at };
            },
        };
    }
}
