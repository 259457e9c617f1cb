/**
 * The upstream document cache on disk: project pages, projects' and releases' JSON API documents, each
 * with its validators, and the state of the upstream project list. Reads are synchronous (a per-node
 * cache on local disk); writes resolve once durable.
 */
import type { CachedDocument, RootListRecord } from './records.js';

/** Which cached document: a project page, a project's JSON document, or one release's JSON document. */
export type CachedDocumentId =
  | { kind: 'page'; project: string }
  | { kind: 'releases'; project: string }
  | { kind: 'release'; project: string; version: string };

/** A string naming the document, for in-memory maps (not a storage key). */
export function documentLabel(id: CachedDocumentId): string {
  return id.kind === 'release' ? `${id.kind} ${id.project} ${id.version}` : `${id.kind} ${id.project}`;
}

export interface UpstreamDocumentStore {
  get<T>(id: CachedDocumentId): CachedDocument<T> | undefined;
  put<T>(id: CachedDocumentId, entry: CachedDocument<T>): Promise<void>;
  delete(id: CachedDocumentId): Promise<void>;
  /** Every cached document (not the project list's state). */
  entries(): Iterable<{ id: CachedDocumentId; entry: CachedDocument<unknown> }>;
  /** Every cached project page (404s included: their `value` is null). */
  pages(): Iterable<{ project: string; entry: CachedDocument<unknown> }>;
  pageCount(): number;
  getRootList(): RootListRecord | undefined;
  putRootList(record: RootListRecord): Promise<void>;
  deleteRootList(): Promise<void>;
}
