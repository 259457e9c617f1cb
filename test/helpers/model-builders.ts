/** Page-model values for renderer tests. */
import type { FileEntry, ProjectPage } from '../../src/model/documents.js';
import { versionFromFilename } from '../../src/model/filenames.js';
import { normalizeName } from '../../src/model/names.js';

export const SHA = 'a'.repeat(64);

export function fileEntry(filename: string, extra: Partial<FileEntry> = {}): FileEntry {
  return {
    filename,
    version: versionFromFilename(filename),
    sourceUrl: `/packages/x/${filename}`,
    hashes: { sha256: SHA },
    requiresPython: null,
    yanked: false,
    yankedReason: null,
    coreMetadata: false,
    size: 100,
    uploadTime: '2024-01-17T16:53:12.779164Z',
    hasSig: false,
    ...extra,
  };
}

export function projectPage(files: FileEntry[], extra: Partial<ProjectPage> = {}): ProjectPage {
  return {
    name: normalizeName('Demo_Pkg'),
    displayName: 'Demo_Pkg',
    serial: 42,
    files,
    versions: [],
    origin: 'private',
    ...extra,
  };
}
