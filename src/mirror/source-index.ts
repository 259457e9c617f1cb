/**
 * The closure's view of the index, read through the cached source: project pages, and a file's
 * `Requires-Dist` from its `.metadata` (PEP 658) or, failing that, from the METADATA inside the wheel
 * (which fetches the wheel into the cache; not on a dry run).
 */
import { text } from 'node:stream/consumers';
import type { FileBody, FileEntry, ProjectPage } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import type { CachedSource } from '../index/sources/cached-source.js';
import { parseCoreMetadata } from '../upstream/core-metadata.js';
import { readWheelMetadata } from '../upload/dist-metadata.js';
import type { MirrorIndex } from './closure.js';

async function drain(body: FileBody): Promise<void> {
  if (body.kind === 'stored') return;
  const { stream } = await body.open();
  for await (const _ of stream);
}

export class SourceIndex implements MirrorIndex {
  private readonly pages = new Map<ProjectName, Promise<ProjectPage | null>>();
  private readonly deps = new Map<string, Promise<string[] | null>>();

  constructor(
    private readonly source: Pick<CachedSource, 'getProject' | 'openFile'>,
    private readonly options: { fetchWheels: boolean; settle: () => Promise<void> },
  ) {}

  page(name: ProjectName): Promise<ProjectPage | null> {
    let page = this.pages.get(name);
    if (!page) {
      page = this.source.getProject(name);
      this.pages.set(name, page);
    }
    return page;
  }

  requiresDist(name: ProjectName, file: FileEntry): Promise<string[] | null> {
    const key = `${name}/${file.filename}`;
    let deps = this.deps.get(key);
    if (!deps) {
      deps = this.read(name, file);
      this.deps.set(key, deps);
    }
    return deps;
  }

  private async read(name: ProjectName, file: FileEntry): Promise<string[] | null> {
    if (file.coreMetadata !== false) {
      const body = await this.source.openFile(name, file.filename, 'metadata');
      if (body) {
        const stream = body.kind === 'stored' ? await body.read() : (await body.open()).stream;
        return parseCoreMetadata(await text(stream)).requires_dist ?? [];
      }
    }
    if (!file.filename.endsWith('.whl')) return null;
    let body = await this.source.openFile(name, file.filename, 'file');
    if (!body) return null;
    if (body.kind === 'stream') {
      if (!this.options.fetchWheels) return null;
      await drain(body);
      await this.options.settle();
      body = await this.source.openFile(name, file.filename, 'file');
    }
    if (body?.kind !== 'stored') return null;
    return parseCoreMetadata((await readWheelMetadata(body.path ?? body, file.filename)).toString('utf8')).requires_dist ?? [];
  }
}
