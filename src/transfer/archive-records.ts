/**
 * How each kind of record is written as a records line of the archive (format version 1) and read back:
 * the archive's own keys, fixed by the format whatever backend the records come from or go to.
 */
import type { CachedFileId } from '../store/cached-file-index.js';
import type {
  AllowedName,
  CachedDocument,
  CachedFileRecord,
  DeletedFilename,
  FileRecord,
  ProjectRecord,
  ReleaseRecord,
  TokenRecord,
  UserRecord,
} from '../store/records.js';
import type { CachedDocumentId } from '../store/upstream-document-store.js';
import type { DbName } from './archive-format.js';

/** One archive record: its database, its key and its value as the format has them. */
export interface ArchiveLine {
  db: DbName;
  key: unknown;
  value: unknown;
}

export const projectLine = (r: ProjectRecord): ArchiveLine => ({ db: 'projects', key: r.name, value: r });
export const releaseLine = (r: ReleaseRecord): ArchiveLine => ({ db: 'releases', key: [r.project, r.version], value: r });
export const fileLine = (r: FileRecord): ArchiveLine => ({ db: 'files', key: [r.project, r.filename], value: r });
export const deletedLine = (r: DeletedFilename): ArchiveLine => ({ db: 'deleted-files', key: [r.project, r.filename], value: r.deletedAt });
export const allowedLine = (r: AllowedName): ArchiveLine => ({ db: 'allowed-names', key: r.name, value: { by: r.by, at: r.at } });
export const userLine = (r: UserRecord): ArchiveLine => ({ db: 'users', key: r.name, value: r });
export const tokenLine = (r: TokenRecord): ArchiveLine => ({ db: 'tokens', key: r.hash, value: r });

export const documentLine = (id: CachedDocumentId, entry: CachedDocument<unknown>): ArchiveLine => ({
  db: 'upstream-docs',
  key: id.kind === 'release' ? [id.kind, id.project, id.version] : [id.kind, id.project],
  value: entry,
});

export const cachedFileLine = (id: CachedFileId, record: CachedFileRecord): ArchiveLine => ({
  db: 'upstream-files',
  key: [id.project, id.filename, id.variant],
  value: record,
});

// Readers of lines that import-verify.ts has checked.

export const deletedOf = (key: unknown, value: unknown): DeletedFilename => {
  const [project, filename] = key as [string, string];
  return { project, filename, deletedAt: value as string };
};

export const allowedOf = (key: unknown, value: unknown): AllowedName => {
  const { by, at } = value as { by: string | null; at: string };
  return { name: key as string, by, at };
};

export const documentIdOf = (key: unknown): CachedDocumentId => {
  const [kind, project, version] = key as string[];
  return kind === 'release' ? { kind, project: project!, version: version! } : { kind: kind as 'page' | 'releases', project: project! };
};

export const cachedFileIdOf = (key: unknown): CachedFileId => {
  const [project, filename, variant] = key as string[];
  return { project: project!, filename: filename!, variant: variant! };
};

/** The project a record belongs to, or null for records that belong to none (users, tokens). */
export function projectOf(line: ArchiveLine): string | null {
  switch (line.db) {
    case 'projects':
    case 'allowed-names':
      return line.key as string;
    case 'releases':
    case 'files':
    case 'deleted-files':
    case 'upstream-files':
      return (line.key as string[])[0]!;
    case 'upstream-docs':
      return (line.key as string[])[1]!;
    default:
      return null;
  }
}
