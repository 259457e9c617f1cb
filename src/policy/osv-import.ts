/**
 * Reads OSV's per-ecosystem export (https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip: one
 * JSON document per advisory) within bounds: the zip's central directory through archive/zip-entries.ts,
 * then one document at a time, each refused past MAX_DOCUMENT_BYTES. A document that is not an OSV
 * advisory is skipped and named, rather than failing the whole import.
 */
import { stat } from 'node:fs/promises';
import type { Entry } from 'yauzl';
import { LarderError } from '../base/errors.js';
import { readEntry, withZip } from '../archive/zip-entries.js';
import type { AdvisoryEntry } from '../store/advisory-store.js';
import { withoutCoveredVersions } from './advisory-index.js';
import { OsvDocumentError, readOsvDocument } from './osv-document.js';

/** The largest advisory document read; real ones are a few kB, the longest lists of versions under 1 MB. */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;
/** Documents read at once. */
const READ_AHEAD = 16;

export interface OsvImport {
  entries: AdvisoryEntry[];
  /** Documents that name at least one PyPI project. */
  advisories: number;
  /** Documents not read, with why. */
  skipped: { name: string; reason: string }[];
}

const notAccepted = (file: string, detail: string) => new LarderError('invalid_request', `${file} is not an OSV export zip larder accepts: ${detail}`);

export async function readOsvZip(file: string): Promise<OsvImport> {
  const found = await stat(file).catch(() => null);
  if (!found?.isFile()) throw new LarderError('not_found', `${file}: no such file`);
  const documents: Entry[] = [];
  const result: OsvImport = { entries: [], advisories: 0, skipped: [] };
  try {
    await withZip(
      file,
      (entry) => {
        if (entry.fileName.endsWith('.json')) documents.push(entry);
      },
      async (zip) => {
        const readOne = async (entry: Entry) => {
          if (entry.uncompressedSize > MAX_DOCUMENT_BYTES) {
            result.skipped.push({ name: entry.fileName, reason: `larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB` });
            return;
          }
          try {
            const entries = readOsvDocument((await readEntry(zip, entry, MAX_DOCUMENT_BYTES)).toString('utf8'));
            if (entries.length) result.advisories += 1;
            for (const entry of entries) result.entries.push(withoutCoveredVersions(entry));
          } catch (err) {
            if (!(err instanceof OsvDocumentError)) throw err;
            result.skipped.push({ name: entry.fileName, reason: err.message });
          }
        };
        // A few documents at a time: each read waits on the disk, and at most READ_AHEAD documents are in memory at once.
        for (let i = 0; i < documents.length; i += READ_AHEAD) await Promise.all(documents.slice(i, i + READ_AHEAD).map(readOne));
      },
    );
  } catch (err) {
    if (err instanceof LarderError && err.code === 'invalid_distribution') throw notAccepted(file, err.message.replace(/^Invalid distribution file\. /, ''));
    throw err;
  }
  if (documents.length === 0) throw notAccepted(file, 'it holds no .json documents');
  return result;
}
