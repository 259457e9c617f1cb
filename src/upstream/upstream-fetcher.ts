/**
 * One upstream index read over HTTP, uncached: not a `PackageSource` itself, but what the `cached` source
 * fetches from. Project pages are asked for as PEP 691 JSON (HTML accepted), the JSON API is read when the
 * upstream has one, files are streamed.
 * Documents are fetched conditionally (ETag / Last-Modified) so that the cache can revalidate them.
 */
import { LarderError } from '../base/errors.js';
import { type UpstreamClient, UpstreamError, type UpstreamResponse } from './client.js';
import { classify, UPSTREAM_ERROR_CODES } from './upstream-error.js';
import { parseJsonApiStream, parseReleaseJsonStream, type ReleaseDocument } from './parse-json-api.js';
import { parseProjectPageStream } from './parse-project-page.js';
import { parseRootHtmlBatches, parseRootJsonBatches } from './parse-root.js';
import { boundedBody, discard, statusError } from './read-body.js';
import type { ProjectListBatch, ProjectPage, ProjectReleases } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';

export const PAGE_ACCEPT = 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01';

/** The largest project page or JSON document larder reads (decoded); pypi.org's largest are a few MB. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** The largest project list larder reads (decoded); pypi.org's, 700,000 names, is about 40 MB. */
export const MAX_ROOT_BYTES = 256 * 1024 * 1024;

export interface UpstreamFetcherOptions {
  /** Simple index base, ending in `/`. */
  indexUrl: string;
  /** JSON API base (`…/pypi/`), or null when the upstream has none. */
  jsonApiUrl: string | null;
  /** Total time for one project page or JSON document, retries included, ms. */
  deadline: number;
  /** Total time for the project list, ms. */
  rootDeadline: number;
  /** Bounds on what is read; the defaults fit pypi.org with room to spare. */
  maxDocumentBytes?: number;
  maxRootBytes?: number;
}

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export type Fetched<T> = { status: 'ok'; value: T; validators: Validators } | { status: 'not-modified' } | { status: 'not-found' };

function conditionalHeaders(validators: Validators | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

function validatorsOf(res: UpstreamResponse): Validators {
  const v: Validators = {};
  if (res.headers.etag) v.etag = res.headers.etag;
  if (res.headers['last-modified']) v.lastModified = res.headers['last-modified'];
  return v;
}

function headerSerial(res: UpstreamResponse): number | undefined {
  const value = Number(res.headers['x-pypi-last-serial']);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

async function unexpected(res: UpstreamResponse): Promise<never> {
  await res.body.dump().catch(() => {});
  throw statusError(res);
}

export class UpstreamFetcher {
  readonly indexUrl: string;
  readonly jsonApiUrl: string | null;

  constructor(
    private readonly client: UpstreamClient,
    private readonly options: UpstreamFetcherOptions,
  ) {
    this.indexUrl = options.indexUrl;
    this.jsonApiUrl = options.jsonApiUrl;
  }

  projectUrl(name: ProjectName): string {
    return new URL(`${encodeURIComponent(name)}/`, this.indexUrl).toString();
  }

  /**
   * The conditional GET every document shares: 304 → not-modified, 404/410 → not-found, 200 → the body
   * parsed by `parse` as it arrives (a parse failure is the upstream's fault), anything else → an error.
   */
  private async fetchDocument<T>(
    url: string,
    accept: string,
    validators: Validators | undefined,
    what: string,
    parse: (body: AsyncIterable<Buffer>, res: UpstreamResponse) => Promise<T>,
  ): Promise<Fetched<T>> {
    const res = await this.client.get(url, {
      headers: { accept, ...conditionalHeaders(validators) },
      deadline: this.options.deadline,
      decode: true,
    });
    if (res.status === 304 || res.status === 404 || res.status === 410) {
      await res.body.dump().catch(() => {});
      return { status: res.status === 304 ? 'not-modified' : 'not-found' };
    }
    if (res.status !== 200) return unexpected(res);
    let value: T;
    try {
      value = await parse(boundedBody(res, this.options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES, what), res);
    } catch (err) {
      if (!res.body.destroyed) discard(res);
      if (err instanceof UpstreamError) throw err;
      throw new UpstreamError(`sent ${what} larder cannot read: ${(err as Error).message}`, 'invalid');
    }
    return { status: 'ok', value, validators: validatorsOf(res) };
  }

  fetchProject(name: ProjectName, validators?: Validators): Promise<Fetched<ProjectPage>> {
    const url = this.projectUrl(name);
    return this.fetchDocument(url, PAGE_ACCEPT, validators, 'a project page', async (body, res) => {
      const page = await parseProjectPageStream(body, res.headers['content-type'] ?? '', { pageUrl: url, headerSerial: headerSerial(res), projectName: name });
      return { ...page, name, origin: 'upstream' as const };
    });
  }

  /** The JSON API document; not-found also when the upstream has no JSON API (the caller builds one). */
  async fetchReleases(name: ProjectName, validators?: Validators): Promise<Fetched<ProjectReleases>> {
    if (!this.jsonApiUrl) return { status: 'not-found' };
    const url = new URL(`${encodeURIComponent(name)}/json`, this.jsonApiUrl).toString();
    return this.fetchDocument(url, 'application/json', validators, 'a JSON API document', async (body, res) => ({
      ...(await parseJsonApiStream(body, { pageUrl: url, headerSerial: headerSerial(res) })),
      name,
    }));
  }

  /** `/pypi/<p>/<v>/json`: one release's own metadata. */
  async fetchRelease(name: ProjectName, version: string, validators?: Validators): Promise<Fetched<ReleaseDocument>> {
    if (!this.jsonApiUrl) return { status: 'not-found' };
    const url = new URL(`${encodeURIComponent(name)}/${encodeURIComponent(version)}/json`, this.jsonApiUrl).toString();
    return this.fetchDocument(url, 'application/json', validators, 'a JSON API document', (body, res) =>
      parseReleaseJsonStream(body, { pageUrl: url, headerSerial: headerSerial(res) }),
    );
  }

  /** The root list, parsed as it streams in. */
  async fetchRoot(
    validators?: Validators,
  ): Promise<{ status: 'ok'; entries: AsyncIterable<ProjectListBatch>; validators: Validators; serial: number | undefined } | { status: 'not-modified' }> {
    const res = await this.client.get(this.indexUrl, {
      headers: { accept: PAGE_ACCEPT, ...conditionalHeaders(validators) },
      deadline: this.options.rootDeadline,
      decode: true,
    });
    if (res.status === 304) {
      await res.body.dump().catch(() => {});
      return { status: 'not-modified' };
    }
    if (res.status !== 200) return unexpected(res);
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const body = () => boundedBody(res, this.options.maxRootBytes ?? MAX_ROOT_BYTES, 'a project list');
    const entries =
      type === 'application/vnd.pypi.simple.v1+json'
        ? parseRootJsonBatches(body())
        : type === 'text/html' || type === 'application/vnd.pypi.simple.v1+html'
          ? parseRootHtmlBatches(body())
          : null;
    if (!entries) {
      await res.body.dump().catch(() => {});
      throw new UpstreamError(`sent the project list as ${JSON.stringify(type)}, which is not a simple index type`, 'invalid');
    }
    return { status: 'ok', entries, validators: validatorsOf(res), serial: headerSerial(res) };
  }

  /**
   * Starts a file download (no total deadline: only the idle time-out), from byte `from` on when it is
   * given (a `Range` the upstream may answer with 206 or ignore with 200); the caller consumes or dumps the body.
   */
  async download(url: string, signal?: AbortSignal, from?: number): Promise<UpstreamResponse> {
    return this.client.get(url, { signal, ...(from ? { headers: { range: `bytes=${from}-` } } : {}) });
  }

  /** The client-facing error for an upstream that failed with no cached copy to fall back on. */
  failure(what: string, err: unknown): LarderError {
    const e = classify(err);
    return new LarderError(UPSTREAM_ERROR_CODES[e.kind], `The upstream index ${this.indexUrl} failed for ${what} and larder has no cached copy: ${e.message}.`);
  }
}
