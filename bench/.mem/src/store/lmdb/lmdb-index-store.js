import { IndexDatabases } from './index-databases.js';
export class LmdbIndexStore extends IndexDatabases {
    /** The same databases without the transactions of this class's writes: the target of `importRecords`. */
    importTarget;
    constructor(root) {
        super(root);
        this.importTarget = new IndexDatabases(root);
    }
    transaction(fn) {
        return this.root.transactionSync(fn);
    }
    readSnapshot(fn) {
        const transaction = this.root.useReadTransaction();
        try {
            return fn(this.snapshotOf(transaction));
        }
        finally {
            transaction.done();
        }
    }
    importRecords(fn) {
        return this.transaction(() => fn(this.importTarget));
    }
    publishFile(input) {
        return this.transaction(() => {
            const { project, release, file, user } = input;
            const existing = this.files.get([project.name, file.filename]);
            if (existing) {
                return existing.sha256 === file.sha256 && existing.blake2b_256 === file.blake2b_256
                    ? { outcome: 'identical', serial: this.projects.get(project.name)?.serial ?? this.lastSerial() }
                    : { outcome: 'conflict', existing };
            }
            if (this.deleted.get([project.name, file.filename]) !== undefined)
                return { outcome: 'reused-filename' };
            const now = file.uploadTime;
            const newProject = !this.projects.get(project.name);
            if (newProject) {
                this.projects.putSync(project.name, {
                    name: project.name,
                    displayName: project.displayName,
                    createdAt: now,
                    serial: 0,
                    ...(project.serialBase ? { serialBase: project.serialBase } : {}),
                    owners: user ? [user] : [],
                    maintainers: [],
                });
                this.recordChange(project.name, 'create project', user);
            }
            else {
                const record = this.projects.get(project.name);
                if (record.displayName !== project.displayName)
                    this.projects.putSync(project.name, { ...record, displayName: project.displayName });
            }
            if (!this.releases.get([project.name, release.version])) {
                this.releases.putSync([project.name, release.version], {
                    project: project.name,
                    version: release.version,
                    metadata: release.metadata,
                    createdAt: now,
                    yanked: false,
                    yankedReason: null,
                });
            }
            this.files.putSync([project.name, file.filename], file);
            const serial = this.recordChange(project.name, 'add file', user, release.version, file.filename);
            return { outcome: 'created', serial, newProject };
        });
    }
    setYanked(project, version, yanked, reason, user) {
        return this.transaction(() => {
            const release = this.releases.get([project, version]);
            if (!release)
                return null;
            this.releases.putSync([project, version], { ...release, yanked, yankedReason: yanked ? reason || null : null });
            return this.recordChange(project, yanked ? 'yank release' : 'unyank release', user, version);
        });
    }
    remove(project, version, filename, user) {
        return this.transaction(() => {
            if (!this.projects.get(project))
                return null;
            const files = this.getFiles(project).filter((f) => (version === null || f.version === version) && (filename === null || f.filename === filename));
            const releases = version === null ? this.getReleases(project) : this.getReleases(project).filter((r) => r.version === version);
            if (filename !== null && files.length === 0)
                return null;
            if (version !== null && releases.length === 0)
                return null;
            const now = new Date().toISOString();
            for (const f of files) {
                this.files.removeSync([project, f.filename]);
                this.deleted.putSync([project, f.filename], now);
            }
            if (filename === null) {
                for (const r of releases)
                    this.releases.removeSync([project, r.version]);
            }
            if (version === null && filename === null) {
                this.recordChange(project, 'remove project', user);
                this.projects.removeSync(project);
            }
            else {
                this.recordChange(project, filename === null ? 'remove release' : 'remove file', user, version, filename);
            }
            return files;
        });
    }
    addMaintainer(project, user, by) {
        return this.transaction(() => {
            const record = this.projects.get(project);
            if (!record)
                return false;
            if (!record.maintainers.includes(user) && !record.owners.includes(user)) {
                this.projects.putSync(project, { ...record, maintainers: [...record.maintainers, user] });
                this.recordChange(project, 'add maintainer', by);
            }
            return true;
        });
    }
    putUser(user) {
        this.transaction(() => super.putUser(user));
    }
    removeUser(name) {
        return this.transaction(() => {
            if (!this.users.get(name))
                return false;
            this.users.removeSync(name);
            for (const { key, value } of this.tokens.getRange())
                if (value.user === name)
                    this.tokens.removeSync(key);
            const without = (users) => users.filter((user) => user !== name);
            const roles = Array.from(this.projects.getRange(), ({ value }) => value).filter((p) => p.owners.includes(name) || p.maintainers.includes(name));
            for (const p of roles)
                this.projects.putSync(p.name, { ...p, owners: without(p.owners), maintainers: without(p.maintainers) });
            return true;
        });
    }
    putToken(token) {
        this.transaction(() => super.putToken(token));
    }
    removeToken(id) {
        return this.transaction(() => {
            for (const { key, value } of this.tokens.getRange()) {
                if (value.id === id) {
                    this.tokens.removeSync(key);
                    return true;
                }
            }
            return false;
        });
    }
    allowName(name, by) {
        this.transaction(() => this.putAllowedName({ name, by, at: new Date().toISOString() }));
    }
}
