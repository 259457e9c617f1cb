/**
 * Receiving a legacy upload: the multipart/form-data body is split into parts by @fastify/busboy's
 * `Dicer` (its public part-level parser, which hands over each part's raw headers); text fields are
 * collected (repeats kept in order), the `content` and `gpg_signature` parts are piped straight to
 * temporary files through a hashing writer, so memory stays flat whatever the file size: a slow disk
 * pauses the part, which pauses the parser, which pauses the request.
 *
 * A part is a file when its Content-Disposition has a filename (RFC 7578), with or without a
 * Content-Type (flit sends none).
 *
 * `:action` may also come as a query parameter (`/legacy/?:action=file_upload`), as on PyPI: it is taken
 * from `opts.query` (or else `req.url`) and used when the form has no `:action` field.
 *
 * On any failure every temporary file is removed before the promise rejects, and the rest of the body is
 * drained so the client can read the error response (an HTTP layer that would rather not read a huge
 * body to its end can send `Connection: close`).
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { lazyRequire } from '../base/lazy-require.js';
import { LarderError } from '../base/errors.js';
import { HashingFileWriter, whenClosed, type HashingWriterOptions } from './hashing-writer.js';
import { assertMultipartFormData, dispositionFilename, dispositionName, multipartBoundary } from './multipart-headers.js';
import type { RawUpload, ReceiveOptions, ReceivedFile } from './types.js';

const busboy = () => lazyRequire('@fastify/busboy') as typeof import('@fastify/busboy');

const MiB = 1024 * 1024;
const DEFAULT_MAX_FIELDS_SIZE = 20 * MiB;
const DEFAULT_MAX_FIELDS = 1000;
const DEFAULT_MAX_SIGNATURE_SIZE = 1 * MiB;
/** Bytes of one part's header block the parser keeps (it drops the rest); real parts send well under 1 KB. */
const MAX_PART_HEADERS_SIZE = 16 * 1024;
const MAX_PART_HEADER_PAIRS = 32;
/** One part header value: a Content-Disposition with a 255-byte filename, escaped, fits many times over. */
const MAX_PART_HEADER_VALUE = 8 * 1024;
/** Content-Transfer-Encodings that leave the bytes as they are (RFC 7578 deprecates the others). */
const IDENTITY_ENCODINGS = new Set(['7bit', '8bit', 'binary']);

interface PartInfo {
  field: string;
  filename: string;
  contentType: string | null;
}

interface ReceivedPart {
  info: PartInfo;
  writer: HashingFileWriter;
}

type PartHeaders = Record<string, string[] | undefined>;

export async function receiveUpload(req: IncomingMessage, opts: ReceiveOptions): Promise<RawUpload> {
  assertMultipartFormData(req.headers['content-type']);
  const boundary = multipartBoundary(req.headers['content-type']!);

  const fields: Record<string, string[]> = Object.create(null);
  const received = new Map<string, ReceivedPart>();
  const writers: HashingFileWriter[] = [];
  const fileLimits = fileLimitsFor(opts);
  const maxFieldsSize = opts.maxFieldsSize ?? DEFAULT_MAX_FIELDS_SIZE;
  const maxFields = opts.maxFields ?? DEFAULT_MAX_FIELDS;
  let fieldsSize = 0;
  let fieldCount = 0;
  let partCount = 0;
  const maxParts = maxFields + Object.keys(fileLimits).length;

  let failed = false;
  let fail: (error: unknown) => void = () => undefined;
  // The parser reads maxHeaderSize (deps/dicer/lib/HeaderParser.js) though its typings leave it out.
  const parserConfig = { boundary, maxHeaderPairs: MAX_PART_HEADER_PAIRS, maxHeaderSize: MAX_PART_HEADERS_SIZE };
  const parser = new (busboy().Dicer)(parserConfig);

  const collectField = (name: string, part: Readable): void => {
    if (++fieldCount > maxFields) {
      fail(new LarderError('too_many_fields', `Too many form fields. Limit is ${maxFields}.`));
      return;
    }
    const chunks: Buffer[] = [];
    part.on('data', (chunk: Buffer) => {
      fieldsSize += chunk.length;
      if (fieldsSize > maxFieldsSize) {
        fail(new LarderError('fields_too_large', `Form fields too large. Limit is ${formatSize(maxFieldsSize)}.`));
      } else chunks.push(chunk);
    });
    part.on('end', () => {
      if (failed) return;
      const values = fields[name] ?? [];
      values.push(Buffer.concat(chunks).toString('utf8'));
      fields[name] = values;
    });
  };

  const receiveFile = (info: PartInfo, part: Readable): void => {
    const limits = Object.hasOwn(fileLimits, info.field) ? fileLimits[info.field] : undefined;
    if (!limits) {
      fail(new LarderError('unexpected_file', `${info.field}: Should not be a tuple.`));
      return;
    }
    if (received.has(info.field)) {
      fail(new LarderError('repeated_file', `Upload payload has more than one '${info.field}' file.`));
      return;
    }
    const writer = new HashingFileWriter(join(opts.tmpDir, `larder-upload-${randomUUID()}`), limits);
    writers.push(writer);
    received.set(info.field, { info, writer });
    writer.on('error', fail);
    part.pipe(writer);
  };

  const onPart = (part: Readable): void => {
    // Every part is read to its end, or the parser would wait for it forever; a part's bytes only flow
    // after its 'header' event, where the listeners that want them are attached.
    part.on('error', () => undefined);
    // Parts without a name are counted too: a body of a million empty parts is refused like a million fields.
    if (++partCount > maxParts) {
      fail(new LarderError('too_many_fields', `Too many form parts. Limit is ${maxParts}.`));
    }
    part.once('header', (raw: object) => {
      if (failed) return;
      const headers = raw as PartHeaders;
      if (Object.values(headers).some((values) => values?.some((value) => value.length > MAX_PART_HEADER_VALUE))) {
        return fail(invalidMultipart(`a part header is longer than ${formatSize(MAX_PART_HEADER_VALUE)}`));
      }
      const disposition = headerValue(headers, 'content-disposition');
      const name = dispositionName(disposition);
      if (!name) return;
      const filename = dispositionFilename(disposition);
      const encoding = headerValue(headers, 'content-transfer-encoding')?.trim().toLowerCase();
      if (encoding && !IDENTITY_ENCODINGS.has(encoding)) {
        return fail(invalidMultipart('a part uses an unsupported Content-Transfer-Encoding'));
      }
      if (filename === null) return collectField(name, part);
      receiveFile({ field: name, filename, contentType: headerValue(headers, 'content-type')?.trim() || null }, part);
    });
    part.resume();
  };

  const parsed = new Promise<void>((resolve, reject) => {
    fail = (error) => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    parser.on('part', onPart);
    parser.on('error', () => fail(invalidMultipart('the body is not well-formed multipart/form-data or ends before the closing boundary')));
    parser.on('finish', () => {
      Promise.all(writers.map((writer) => finished(writer))).then(() => resolve(), fail);
    });
    req.on('error', () => fail(abortedError()));
    req.pipe(parser);
  });

  let cleaned: Promise<void> | null = null;
  const cleanup = (): Promise<void> =>
    (cleaned ??= Promise.all(
      writers.map(async (writer) => {
        writer.destroy();
        await whenClosed(writer);
        await rm(writer.path, { force: true });
      }),
    ).then(() => undefined));

  const abort = watchForAbort(req);
  try {
    await Promise.race([parsed, abort.promise]);
  } catch (err) {
    failed = true;
    req.unpipe(parser);
    await cleanup();
    if (!req.destroyed) req.resume();
    throw err;
  } finally {
    abort.dispose();
  }

  if (!Object.hasOwn(fields, ':action')) {
    const fromQuery = queryActions(opts.query, req.url);
    if (fromQuery.length > 0) fields[':action'] = fromQuery;
  }
  const content = received.get('content');
  const signature = received.get('gpg_signature');
  return {
    fields,
    ...(content && { content: toReceivedFile(content) }),
    ...(signature && { signature: toReceivedFile(signature) }),
    cleanup,
  };
}

/** The file parts larder takes, with their size limits; any other file part is refused. */
function fileLimitsFor(opts: ReceiveOptions): Record<string, HashingWriterOptions> {
  const maxSignatureSize = opts.maxSignatureSize ?? DEFAULT_MAX_SIGNATURE_SIZE;
  return {
    content: {
      maxBytes: opts.maxFileSize,
      tooLarge: () => new LarderError('file_too_large', `File too large. Limit is ${formatSize(opts.maxFileSize)}.`),
    },
    gpg_signature: {
      maxBytes: maxSignatureSize,
      tooLarge: () => new LarderError('signature_too_large', `Signature file too large. Limit is ${formatSize(maxSignatureSize)}.`),
    },
  };
}

/** A part header's first value; the parser reads header bytes as latin-1, clients send UTF-8. */
function headerValue(headers: PartHeaders, name: string): string | undefined {
  const value = headers[name]?.[0];
  return value === undefined ? undefined : Buffer.from(value, 'latin1').toString('utf8');
}

function toReceivedFile({ info, writer }: ReceivedPart): ReceivedFile {
  return { path: writer.path, filename: info.filename, contentType: info.contentType, ...writer.digests };
}

function queryActions(query: ReceiveOptions['query'], url: string | undefined): string[] {
  if (query) {
    const value = query[':action'];
    return value === undefined ? [] : Array.isArray(value) ? value : [value];
  }
  if (!url) return [];
  return new URL(url, 'http://larder.invalid').searchParams.getAll(':action');
}

/** Rejects when the client goes away before the whole body arrived. */
function watchForAbort(req: IncomingMessage): { promise: Promise<never>; dispose(): void } {
  let onClose = (): void => undefined;
  const promise = new Promise<never>((_resolve, reject) => {
    onClose = () => {
      if (!req.complete) reject(abortedError());
    };
    if (req.destroyed) onClose();
    else req.once('close', onClose);
  });
  return { promise, dispose: () => req.off('close', onClose) };
}

const abortedError = () => new LarderError('upload_aborted', 'Upload aborted: the request body ended before it was complete.');

const invalidMultipart = (detail: string) => new LarderError('invalid_multipart', `Invalid multipart body: ${detail}.`);

/** `100 MB` for 100 MiB, as PyPI words its limits. */
export function formatSize(bytes: number): string {
  const round = (n: number) => String(Number(n.toFixed(1)));
  if (bytes >= 1024 * MiB) return `${round(bytes / (1024 * MiB))} GB`;
  if (bytes >= MiB) return `${round(bytes / MiB)} MB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
