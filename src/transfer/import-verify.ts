/**
 * The checks of `larder import`'s first pass, made before anything outside the staging directory is
 * touched: the header, every entry against the manifest, and every record's shape and blob references.
 * Any disagreement refuses the whole archive.
 */
import {
  ALL_DBS,
  BLOBS_PREFIX,
  decodeRecord,
  FORMAT,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  SHA256_HEX,
  shortName,
  type DbName,
  type ExportHeader,
  type ManifestEntry,
} from './archive-format.js';
import { userNameProblem } from '../auth/user-rules.js';
import { readLinesSync } from './files.js';
import { PROJECT_STATUS_NAMES } from '../store/records.js';

/** The archive was not accepted; nothing was imported. */
export class ImportRefused extends Error {
  constructor(reason: string) {
    super(`import refused: ${reason}; nothing was imported`);
  }
}

/** What pass 1 read from the archive into the staging directory. */
export interface Staged {
  header: ExportHeader;
  /** Entries as found, in archive order (manifest excluded). */
  found: ManifestEntry[];
  manifestText: string;
  records: Map<DbName, string>;
  /** Blobs in the archive → staged path, or null when this store already had the blob. */
  blobs: Map<string, string | null>;
}

/** The records of one database as staged (checked by verifyRecords before anything reads them). */
export function* stagedRecords(staged: Staged, db: DbName): Generator<{ key: unknown; value: unknown }> {
  const path = staged.records.get(db);
  if (!path) return;
  for (const line of readLinesSync(path)) yield decodeRecord(line);
}

/** The parsed header entry: a larder export of a format version this larder reads, with its counts. */
export function checkHeader(text: string): ExportHeader {
  let header: ExportHeader;
  try {
    header = JSON.parse(text) as ExportHeader;
  } catch {
    throw new ImportRefused(`${HEADER_ENTRY} is not valid JSON`);
  }
  if (!header || header.format !== FORMAT) throw new ImportRefused(`${HEADER_ENTRY} does not describe a larder export`);
  if (header.formatVersion !== FORMAT_VERSION) {
    throw new ImportRefused(`the archive has format version ${JSON.stringify(header.formatVersion)}; this larder reads version ${FORMAT_VERSION}`);
  }
  if (!header.counts || typeof header.counts.blobs !== 'number' || typeof header.counts.records !== 'object') {
    throw new ImportRefused(`${HEADER_ENTRY} lacks its counts`);
  }
  return header;
}

/** Compares what was found with the manifest; refuses at the first disagreement. */
export function verifyManifest(staged: Staged): void {
  let manifest: { format?: unknown; formatVersion?: unknown; entries?: unknown };
  try {
    manifest = JSON.parse(staged.manifestText) as typeof manifest;
  } catch {
    throw new ImportRefused(`${MANIFEST_ENTRY} is not valid JSON`);
  }
  if (!manifest || manifest.format !== FORMAT || !Array.isArray(manifest.entries)) {
    throw new ImportRefused(`${MANIFEST_ENTRY} is not a larder manifest`);
  }
  if (manifest.formatVersion !== FORMAT_VERSION) throw new ImportRefused(`${MANIFEST_ENTRY} has format version ${JSON.stringify(manifest.formatVersion)}`);
  const listed = new Map<string, ManifestEntry>();
  for (const e of manifest.entries as ManifestEntry[]) {
    if (!e || typeof e.name !== 'string' || typeof e.size !== 'number' || typeof e.sha256 !== 'string') {
      throw new ImportRefused(`${MANIFEST_ENTRY} has a malformed entry ${JSON.stringify(e).slice(0, 100)}`);
    }
    if (listed.has(e.name)) throw new ImportRefused(`${MANIFEST_ENTRY} lists ${shortName(e.name)} twice`);
    listed.set(e.name, e);
  }
  for (const got of staged.found) {
    const want = listed.get(got.name);
    if (!want) throw new ImportRefused(`${got.name} is in the archive but not in the manifest`);
    if (got.size !== want.size) throw new ImportRefused(`${got.name} has ${got.size} bytes but the manifest says ${want.size}`);
    if (got.sha256 !== want.sha256) throw new ImportRefused(`${got.name} has sha256 ${got.sha256} but the manifest says ${want.sha256}`);
    if (got.name.startsWith(BLOBS_PREFIX) && got.name !== `${BLOBS_PREFIX}${got.sha256}`) {
      throw new ImportRefused(`${got.name} holds bytes whose sha256 is ${got.sha256}`);
    }
    listed.delete(got.name);
  }
  for (const missing of listed.keys()) throw new ImportRefused(`${missing} is listed in the manifest but missing from the archive`);
}

export const isSha = (s: unknown): s is string => typeof s === 'string' && SHA256_HEX.test(s);
/** The statuses a project record stores (`active` is stored as none). */
const STORED_STATUSES: readonly unknown[] = PROJECT_STATUS_NAMES.filter((s) => s !== 'active');
const isStr = (s: unknown): s is string => typeof s === 'string' && s.length > 0;
const isStrKey = (key: unknown, n: number): key is [string, string, ...string[]] => Array.isArray(key) && key.length === n && key.every(isStr);
/** The archive's document keys: ['page' | 'releases', name] and ['release', name, version] (['root'] is never exported). */
const isDocKey = (key: unknown): boolean => (isStrKey(key, 2) && (key[0] === 'page' || key[0] === 'releases')) || (isStrKey(key, 3) && key[0] === 'release');

/** Parses every staged record and checks its shape and blob references; refuses at the first bad line. */
export function verifyRecords(staged: Staged): void {
  const projects = new Set<string>();
  const users = new Set<string>();
  for (const db of ALL_DBS) {
    const path = staged.records.get(db);
    const entry = `records/${db}.jsonl`;
    const expected = staged.header.counts.records[db];
    if (!path) {
      if (expected) throw new ImportRefused(`${entry} is missing but ${HEADER_ENTRY} says it holds ${expected} records`);
      continue;
    }
    let lineNo = 0;
    for (const line of readLinesSync(path)) {
      lineNo++;
      const bad = (why: string) => new ImportRefused(`${entry} line ${lineNo}: ${why}`);
      let key: unknown;
      let value: unknown;
      try {
        ({ key, value } = decodeRecord(line));
      } catch (err) {
        throw bad(`not a valid record (${(err as Error).message})`);
      }
      const v = (value ?? {}) as Record<string, unknown>;
      const needBlob = (sha: unknown, what: string) => {
        if (!isSha(sha)) throw bad(`${what} is not a sha256`);
        if (!staged.blobs.has(sha)) throw bad(`references blob ${sha}, which the archive lacks`);
      };
      switch (db) {
        case 'projects':
          if (!isStr(key) || v.name !== key || !Array.isArray(v.owners) || !Array.isArray(v.maintainers)) throw bad('not a project record');
          if (v.status !== undefined && !STORED_STATUSES.includes(v.status as string)) throw bad('not a project record (its status)');
          if (v.statusReason !== undefined && !(isStr(v.statusReason) && v.statusReason.length <= 500 && !/[\u0000-\u001f\u007f]/.test(v.statusReason)))
            throw bad('not a project record (its status reason)');
          projects.add(key);
          break;
        case 'releases':
          if (!isStrKey(key, 2) || v.project !== key[0] || v.version !== key[1]) throw bad('not a release record');
          if (!projects.has(key[0])) throw bad(`release of project ${key[0]}, which the archive lacks`);
          break;
        case 'files': {
          if (!isStrKey(key, 2) || v.filename !== key[1] || v.project !== key[0] || !isStr(v.version)) throw bad('not a file record');
          if (!projects.has(key[0])) throw bad(`file of project ${key[0]}, which the archive lacks`);
          needBlob(v.sha256, 'sha256');
          if (v.metadataSha256 != null) needBlob(v.metadataSha256, 'metadataSha256');
          if (v.signatureSha256 != null) needBlob(v.signatureSha256, 'signatureSha256');
          break;
        }
        case 'deleted-files':
          if (!isStrKey(key, 2)) throw bad('not a removed-file record');
          break;
        case 'allowed-names':
          if (!isStr(key)) throw bad('not an allowed-name record');
          break;
        case 'users': {
          if (!isStr(key) || v.name !== key || !isStr(v.passwordHash) || typeof v.admin !== 'boolean' || !isStr(v.createdAt)) throw bad('not a user record');
          const problem = userNameProblem(key);
          if (problem) throw bad(problem);
          if (users.has(key)) throw bad(`user ${key} appears twice`);
          users.add(key);
          break;
        }
        case 'tokens':
          if (!isSha(key) || v.hash !== key || !isStr(v.id) || !isStr(v.user) || (v.expiresAt !== undefined && !isStr(v.expiresAt)))
            throw bad('not a token record');
          if (v.projects !== null && !(Array.isArray(v.projects) && v.projects.every(isStr))) throw bad('not a token record (its projects)');
          if (!users.has(v.user)) throw bad(`token of user ${String(v.user).slice(0, 64)}, whom the archive lacks`);
          break;
        case 'upstream-docs':
          if (!isDocKey(key) || typeof v.fetchedAt !== 'number' || !('value' in v)) throw bad('not a cached page or document record');
          break;
        case 'upstream-files':
          if (!isStrKey(key, 3) || typeof v.fetchedAt !== 'number' || typeof v.size !== 'number') throw bad('not a cached file record');
          needBlob(v.sha256, 'sha256');
          break;
      }
    }
    if (expected !== undefined && expected !== lineNo) throw new ImportRefused(`${entry} has ${lineNo} records but ${HEADER_ENTRY} says ${expected}`);
  }
  if (staged.header.counts.blobs !== staged.blobs.size) {
    throw new ImportRefused(`the archive has ${staged.blobs.size} blobs but ${HEADER_ENTRY} says ${staged.header.counts.blobs}`);
  }
}
