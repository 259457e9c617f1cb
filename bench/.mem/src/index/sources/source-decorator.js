export class SourceDecorator {
    inner;
    constructor(inner) {
        this.inner = inner;
    }
    listProjects() {
        return this.inner.listProjects();
    }
    listVersion() {
        return this.inner.listVersion();
    }
    lastSerial() {
        return this.inner.lastSerial();
    }
    getProject(name, trace) {
        return this.inner.getProject(name, trace);
    }
    getReleases(name, trace, forVersion) {
        return this.inner.getReleases(name, trace, forVersion);
    }
    openFile(name, filename, variant, trace) {
        return this.inner.openFile(name, filename, variant, trace);
    }
}
