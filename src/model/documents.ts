/**
 * The page model: what every package source returns and every renderer reads.
 * One shape for private projects, upstream projects and the merge of both.
 */
import type { Readable } from 'node:stream';
import type { ProjectName } from './names.js';

export type HashName = 'md5' | 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512' | 'blake2b_256' | string;
export type Hashes = Partial<Record<HashName, string>>;

export type PackageType = 'sdist' | 'bdist_wheel' | string;

export type ProjectStatus = { status?: 'active' | 'archived' | 'quarantined' | 'deprecated'; reason?: string };

/** One distribution file of a project, as listed on its simple page. */
export interface FileEntry {
  filename: string;
  /** Parsed from the filename; null when the filename has no recognisable version. */
  version: string | null;
  /**
   * Where the bytes come from. For private files a larder path (`/packages/...`); for upstream files the
   * absolute upstream URL. Renderers never emit it: they link every file under larder's own host.
   */
  sourceUrl: string;
  /** Lowercase hash name → lowercase hex. */
  hashes: Hashes;
  requiresPython: string | null;
  yanked: boolean;
  yankedReason: string | null;
  /** Hashes of the `.metadata` file, `true` when it exists with no known hash, `false` when there is none. */
  coreMetadata: Hashes | true | false;
  size: number | null;
  /** ISO 8601 UTC with `Z`. */
  uploadTime: string | null;
  /** Upstream provenance URL (PEP 740), passed through unchanged. */
  provenance?: string | null;
  /** A detached signature is served at `<file URL>.asc`. */
  hasSig: boolean;
}

/** A project's simple page (PEP 503/691). */
export interface ProjectPage {
  name: ProjectName;
  /** Name as uploaded or as upstream shows it. */
  displayName: string;
  /** X-PyPI-Last-Serial for this project. */
  serial: number;
  files: FileEntry[];
  /** Every version with a file, plus any the source lists with none. */
  versions: string[];
  status?: ProjectStatus;
  /** Where the page came from: 'private', 'upstream' or 'merged'. */
  origin: 'private' | 'upstream' | 'merged';
}

export interface ProjectListEntry {
  name: string;
  serial?: number;
  /** The normalized name, where the source already has it (saves normalizing 600,000 names per listing). */
  normalized?: string;
}

/** Project lists travel in batches: one await per batch, not per project. */
export type ProjectListBatch = readonly ProjectListEntry[];

/** What the root renderers take: entries, or batches of them. */
export type ProjectListInput = AsyncIterable<ProjectListEntry | ProjectListBatch> | Iterable<ProjectListEntry | ProjectListBatch>;

/** The entries of a ProjectListInput, batch by batch. */
export async function* listBatches(input: ProjectListInput): AsyncIterable<ProjectListBatch> {
  for await (const item of input) yield Array.isArray(item) ? (item as ProjectListBatch) : [item as ProjectListEntry];
}

/** Core metadata of one release, named as the JSON API's `info` object names it. */
export interface ReleaseMetadata {
  name: string;
  version: string;
  summary: string | null;
  description: string | null;
  description_content_type: string | null;
  author: string | null;
  author_email: string | null;
  maintainer: string | null;
  maintainer_email: string | null;
  license: string | null;
  license_expression: string | null;
  license_files: string[] | null;
  keywords: string | null;
  home_page: string | null;
  download_url: string | null;
  platform: string | null;
  requires_python: string | null;
  requires_dist: string[] | null;
  provides_extra: string[] | null;
  dynamic: string[] | null;
  classifiers: string[];
  project_urls: Record<string, string> | null;
}

/** The data behind a file object of the JSON API (`releases[v][]`, `urls[]`). */
export interface ReleaseFile extends FileEntry {
  packagetype: PackageType;
  pythonVersion: string;
  comment: string | null;
}

export interface Release {
  version: string;
  metadata: ReleaseMetadata;
  yanked: boolean;
  yankedReason: string | null;
  files: ReleaseFile[];
}

export interface Vulnerability {
  id: string;
  source: string;
  link: string;
  aliases: string[];
  details: string;
  summary: string | null;
  fixed_in: string[];
  withdrawn: string | null;
}

/** Everything the JSON API documents of one project. */
export interface ProjectReleases {
  name: ProjectName;
  displayName: string;
  serial: number;
  releases: Release[];
  /** Vulnerabilities by version, where the source knows them (upstream passes them through). */
  vulnerabilities?: Record<string, Vulnerability[]>;
  ownership?: { roles: { role: 'Owner' | 'Maintainer'; user: string }[]; organization: string | null };
  /** PEP 792 status of a private project (a quarantined one lists its releases with no files). */
  status?: ProjectStatus;
}

/**
 * The bytes of one file (or of its `.metadata` / `.asc` companion): a verified blob in the store, or a stream that
 * `open()` starts (so a HEAD request of a file of known size starts no download). `open()` rejects when the download fails
 * before its first byte, so the caller can still answer with an error status; it resolves with the size
 * when that is known by then (advertised, or the upstream's Content-Length).
 */
export type FileBody =
  | {
      kind: 'stored';
      size: number;
      sha256: string;
      etag: string;
      contentType: string;
      /** The blob on this machine's disk, or null when the store keeps it elsewhere (object storage). */
      path: string | null;
      /** Opens the bytes, or the inclusive `range`; rejects before any byte when they cannot be read. */
      read: (range?: { start: number; end: number }) => Promise<Readable>;
      /** A URL the client may fetch the bytes from itself (object storage with redirects on); null: none is ever offered. */
      directUrl: (() => Promise<string | null>) | null;
    }
  | {
      kind: 'stream';
      open: () => Promise<{ stream: Readable; size: number | null }>;
      size: number | null;
      etag: string | null;
      contentType: string;
    };

/** Where a proxied answer came from, reported in `X-Larder-Cache`. */
export type CacheState = 'hit' | 'miss' | 'revalidated' | 'stale';

/**
 * Where a source's answer came from, returned with it (docs/architecture.md, "Provenance"): reported in
 * `X-Larder-Cache` and `X-Larder-Upstream`, the request log and the metrics. Empty for a private answer.
 */
export interface Provenance {
  readonly cache?: CacheState;
  /** The name of the upstream that answered. */
  readonly upstream?: string;
}

/** A source's answer (null: the source does not have it) and where it came from. */
export interface Sourced<T> {
  readonly value: T;
  readonly provenance: Provenance;
}

const NO_PROVENANCE: Provenance = Object.freeze({});

export function sourced<T>(value: T, provenance: Provenance = NO_PROVENANCE): Sourced<T> {
  return { value, provenance };
}

export type FileVariant = 'file' | 'metadata' | 'signature';
