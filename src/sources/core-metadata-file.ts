/**
 * A release's metadata read from the `.metadata` file (PEP 658) of one of its distributions, or from the
 * METADATA inside one of its wheels that is already cached.
 */
import { text } from 'node:stream/consumers';
import type { Logger } from 'pino';
import type { FileBody, Release, ReleaseMetadata } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import { parseCoreMetadata } from '../upstream/json-api-from-simple.js';
import type { PackageSource } from './package-source.js';
import { MAX_METADATA_BYTES } from '../download/cached-file-target.js';

/** Finds one release's own metadata; null when it cannot. */
export type ReleaseMetadataLookup = (name: ProjectName, release: Release) => Promise<ReleaseMetadata | null>;

/**
 * Reads the `.metadata` file of the release's first distribution that has one, through `source`. Null
 * (logged) when none has one, the file is too large, or it cannot be read.
 */
export function coreMetadataFile(source: Pick<PackageSource, 'openFile'>, logger: Logger): ReleaseMetadataLookup {
  return async (name, release) => {
    const file = release.files.find((f) => f.coreMetadata !== false);
    if (!file) return null;
    try {
      const { value: body } = await source.openFile(name, file.filename, 'metadata');
      if (!body) return null;
      if (body.kind === 'stored' && body.size > MAX_METADATA_BYTES) return null;
      const stream = body.kind === 'stored' ? await body.read() : (await body.open()).stream;
      return parseCoreMetadata(await text(stream));
    } catch (err) {
      logger.warn({ err: (err as Error).message, project: name, version: release.version }, 'could not read core metadata for the JSON API document');
      return null;
    }
  };
}

/** Reads the METADATA file inside a wheel, on disk or by ranges (the upload checks' reader, passed in). */
export type WheelMetadataReader = (wheel: string | Pick<StoredBody, 'size' | 'read'>, filename: string) => Promise<Buffer>;

type StoredBody = Extract<FileBody, { kind: 'stored' }>;

/**
 * Reads the METADATA inside the first of the release's wheels that is already cached, for upstreams that
 * publish no `.metadata` files. It never starts a download: a wheel not yet stored counts as not found.
 */
export function cachedWheelMetadata(source: Pick<PackageSource, 'openFile'>, readWheel: WheelMetadataReader, logger: Logger): ReleaseMetadataLookup {
  return async (name, release) => {
    for (const file of release.files) {
      if (!file.filename.endsWith('.whl')) continue;
      try {
        const { value: body } = await source.openFile(name, file.filename, 'file');
        if (body?.kind !== 'stored') continue;
        return parseCoreMetadata((await readWheel(body.path ?? body, file.filename)).toString('utf8'));
      } catch (err) {
        logger.warn({ err: (err as Error).message, project: name, file: file.filename }, 'could not read the METADATA of a cached wheel');
      }
    }
    return null;
  };
}

/** The answer of the first lookup that finds the metadata. */
export function firstFound(lookups: readonly ReleaseMetadataLookup[]): ReleaseMetadataLookup {
  return async (name, release) => {
    for (const lookup of lookups) {
      const found = await lookup(name, release);
      if (found) return found;
    }
    return null;
  };
}
