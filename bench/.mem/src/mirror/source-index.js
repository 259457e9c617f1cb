/**
 * The closure's view of the index, read through the cached source: project pages, and a file's
 * `Requires-Dist` from its `.metadata` (PEP 658) or, failing that, from the METADATA inside the wheel
 * (which fetches the wheel into the cache; not on a dry run).
 */
import { createReadStream } from 'node:fs';
import { text } from 'node:stream/consumers';
import { parseCoreMetadata } from '../upstream/core-metadata.js';
import { readWheelMetadata } from '../upload/dist-metadata.js';
async function drain(body) {
    if (body.kind === 'disk')
        return;
    const { stream } = await body.open();
    for await (const _ of stream)
        ;
}
export class SourceIndex {
    source;
    options;
    pages = new Map();
    deps = new Map();
    constructor(source, options) {
        this.source = source;
        this.options = options;
    }
    page(name) {
        let page = this.pages.get(name);
        if (!page) {
            page = this.source.getProject(name);
            this.pages.set(name, page);
        }
        return page;
    }
    requiresDist(name, file) {
        const key = `${name}/${file.filename}`;
        let deps = this.deps.get(key);
        if (!deps) {
            deps = this.read(name, file);
            this.deps.set(key, deps);
        }
        return deps;
    }
    async read(name, file) {
        if (file.coreMetadata !== false) {
            const body = await this.source.openFile(name, file.filename, 'metadata');
            if (body) {
                const stream = body.kind === 'disk' ? createReadStream(body.path) : (await body.open()).stream;
                return parseCoreMetadata(await text(stream)).requires_dist ?? [];
            }
        }
        if (!file.filename.endsWith('.whl'))
            return null;
        let body = await this.source.openFile(name, file.filename, 'file');
        if (!body)
            return null;
        if (body.kind === 'stream') {
            if (!this.options.fetchWheels)
                return null;
            await drain(body);
            await this.options.settle();
            body = await this.source.openFile(name, file.filename, 'file');
        }
        if (body?.kind !== 'disk')
            return null;
        return parseCoreMetadata((await readWheelMetadata(body.path, file.filename)).toString('utf8')).requires_dist ?? [];
    }
}
