/**
 * Pass 2 of `larder import`, against the storage interfaces: decides (and, given a writer, makes) every
 * change the staged records ask for. New projects, releases and files are added, each added file with a
 * new local serial and changelog entry; a file whose name exists here with other bytes is a conflict
 * (reported; the local file is kept); names removed here stay removed; users and tokens only as the
 * operator allowed (import-users.ts); cache entries are added when absent or newer. Running it again adds
 * nothing.
 */
import type { BlobStore } from '../store/blob-store.js';
import type { IndexImport, IndexReads } from '../store/index-store.js';
import type { CachedDocument, CachedFileRecord, FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../store/records.js';
import type { Storage } from '../store/storage.js';
import type { DbName } from './archive-format.js';
import { allowedOf, cachedFileIdOf, deletedOf, documentIdOf } from './archive-records.js';
import { judgeUser, takesTokens, type UserTrust, type UserVerdict } from './import-users.js';
import { isSha, stagedRecords, type Staged } from './import-verify.js';

/** What an import added, found identical, or left out. */
export interface ImportCounts {
  projectsAdded: number;
  releasesAdded: number;
  filesAdded: number;
  filesIdentical: number;
  conflicts: number;
  /** Files whose names were removed here (names stay reserved), not added. */
  filesReserved: number;
  /** Records not added because a blob they need vanished from this store meanwhile. */
  missingBlob: number;
  reservationsAdded: number;
  allowedNamesAdded: number;
  usersAdded: number;
  tokensAdded: number;
  /** Users of the archive whose name is another account here: neither they nor their tokens were added. */
  usersNotMerged: number;
  cacheDocsAdded: number;
  cacheFilesAdded: number;
}

const zeroCounts = (): ImportCounts => ({
  projectsAdded: 0,
  releasesAdded: 0,
  filesAdded: 0,
  filesIdentical: 0,
  conflicts: 0,
  filesReserved: 0,
  missingBlob: 0,
  reservationsAdded: 0,
  allowedNamesAdded: 0,
  usersAdded: 0,
  tokensAdded: 0,
  usersNotMerged: 0,
  cacheDocsAdded: 0,
  cacheFilesAdded: 0,
});

/** One pass over the staged records: with `write`, blobs are checked again right before a record needing them is written. */
class ImportPass {
  readonly counts = zeroCounts();
  /** Blobs the changes need (noted when planning). */
  readonly neededBlobs = new Set<string>();

  constructor(
    private readonly staged: Staged,
    private readonly blobs: BlobStore,
    private readonly write: boolean,
    private readonly trust: UserTrust,
    private readonly report: (line: string) => void,
  ) {}

  each(name: DbName): Generator<{ key: unknown; value: unknown }> {
    return stagedRecords(this.staged, name);
  }

  /** Are the blobs there (write), or note them as needed (plan)? */
  blobsReady(shas: string[]): boolean {
    if (!this.write) {
      for (const s of shas) this.neededBlobs.add(s);
      return true;
    }
    return shas.every((s) => this.blobs.hasSync(s));
  }

  /** The private records: `target` is null when only planning. */
  async private(index: IndexReads, target: IndexImport | null): Promise<void> {
    // A store may run this again when its transaction has to be retried: count each attempt afresh.
    Object.assign(this.counts, zeroCounts());
    const { counts, report } = this;
    const created = new Set<string>();
    for (const { value } of this.each('projects')) {
      const project = value as ProjectRecord;
      if (await index.getProject(project.name)) continue;
      counts.projectsAdded++;
      created.add(project.name);
      target?.addProject(project);
    }
    for (const { value } of this.each('releases')) {
      const release = value as ReleaseRecord;
      if ((await index.getRelease(release.project, release.version)) !== undefined) continue;
      counts.releasesAdded++;
      target?.addRelease(release);
    }
    for (const { key, value } of this.each('deleted-files')) {
      const deleted = deletedOf(key, value);
      if ((await index.isFilenameDeleted(deleted.project, deleted.filename)) || (await index.getFile(deleted.project, deleted.filename))) continue;
      counts.reservationsAdded++;
      target?.reserveFilename(deleted);
    }
    for (const { value } of this.each('files')) {
      const file = value as FileRecord;
      const { project, filename } = file;
      const existing = await index.getFile(project, filename);
      if (existing) {
        if (existing.sha256 === file.sha256) {
          counts.filesIdentical++;
        } else {
          counts.conflicts++;
          report(`conflict: ${project}/${filename} exists here with other bytes; kept the local file`);
        }
        continue;
      }
      if (await index.isFilenameDeleted(project, filename)) {
        counts.filesReserved++;
        report(`skipped: ${project}/${filename} was removed here and its name stays reserved`);
        continue;
      }
      if (!created.has(project) && !(await index.getProject(project))) continue; // cannot happen: verifyRecords saw the project
      const shas = [file.sha256, file.metadataSha256, file.signatureSha256].filter((s): s is string => isSha(s));
      if (!this.blobsReady(shas)) {
        counts.missingBlob++;
        report(`skipped: ${project}/${filename}: its blob vanished from this store during the import`);
        continue;
      }
      counts.filesAdded++;
      target?.addFile(file);
    }
    for (const { key, value } of this.each('allowed-names')) {
      const allowed = allowedOf(key, value);
      if (await index.isNameAllowed(allowed.name)) continue;
      counts.allowedNamesAdded++;
      target?.putAllowedName(allowed);
    }
    if (this.trust.users) await this.accounts(index, target);
  }

  /** Users and tokens, as import-users.ts decides (the caller has listed the decisions already). */
  private async accounts(index: IndexReads, target: IndexImport | null): Promise<void> {
    const { counts } = this;
    const verdicts = new Map<string, UserVerdict>();
    for (const { value } of this.each('users')) {
      const user = value as UserRecord;
      const verdict = judgeUser(user, await index.getUser(user.name), this.trust);
      verdicts.set(user.name, verdict);
      if (verdict.kind === 'other') counts.usersNotMerged++;
      if (verdict.kind !== 'new') continue;
      counts.usersAdded++;
      target?.putUser(verdict.record);
    }
    for (const { value } of this.each('tokens')) {
      const token = value as TokenRecord;
      if (!takesTokens(verdicts.get(token.user)) || (await index.getTokenByHash(token.hash))) continue;
      counts.tokensAdded++;
      target?.putToken(token);
    }
  }

  /** The cached upstream records; returns the writes under way. */
  async cache({ documents, cachedFiles }: Pick<Storage, 'documents' | 'cachedFiles'>): Promise<Promise<void>[]> {
    const { counts } = this;
    const writes: Promise<void>[] = [];
    for (const { key, value } of this.each('upstream-docs')) {
      const id = documentIdOf(key);
      const entry = value as CachedDocument<unknown>;
      const local = documents.get(id);
      if (local && local.fetchedAt >= entry.fetchedAt) continue;
      counts.cacheDocsAdded++;
      if (this.write) writes.push(documents.put(id, entry));
    }
    for (const { key, value } of this.each('upstream-files')) {
      const id = cachedFileIdOf(key);
      const record = value as CachedFileRecord;
      const local = await cachedFiles.get(id);
      if (local && local.fetchedAt >= record.fetchedAt && this.blobs.hasSync(local.sha256)) continue;
      if (!this.blobsReady([record.sha256])) {
        counts.missingBlob++;
        continue;
      }
      counts.cacheFilesAdded++;
      if (this.write) writes.push(cachedFiles.put(id, record));
    }
    return writes;
  }
}

/** Decides every change without making any: what would be added, and the blobs that needs. */
export async function planImport(
  storage: Pick<Storage, 'index' | 'documents' | 'cachedFiles' | 'blobs'>,
  staged: Staged,
  trust: UserTrust,
  report: (line: string) => void,
) {
  const pass = new ImportPass(staged, storage.blobs, false, trust, report);
  await pass.private(storage.index, null);
  await pass.cache(storage);
  return { counts: pass.counts, neededBlobs: pass.neededBlobs };
}

/**
 * Makes every change, once the needed blobs are committed: the private records in one transaction of the
 * index store, then the cache entries.
 */
export async function applyImport(
  storage: Pick<Storage, 'index' | 'documents' | 'cachedFiles' | 'blobs'>,
  staged: Staged,
  trust: UserTrust,
  report: (line: string) => void,
): Promise<ImportCounts> {
  const pass = new ImportPass(staged, storage.blobs, true, trust, report);
  await storage.index.importRecords((target) => pass.private(target, target));
  await Promise.all(await pass.cache(storage));
  return pass.counts;
}
