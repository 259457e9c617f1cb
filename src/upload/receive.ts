/**
 * Receiving a legacy upload: the multipart/form-data body is streamed with formidable; text fields are
 * collected (repeats kept in order), the `content` and `gpg_signature` parts go straight to temporary
 * files through a hashing writer, so memory stays flat whatever the file size.
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
import { Writable } from 'node:stream';
import type { Part } from 'formidable';
import { lazyRequire } from '../lazy-require.js';
import { LarderError } from '../errors.js';
import { HashingFileWriter, whenClosed, type HashingWriterOptions } from './hashing-writer.js';
import { assertMultipartFormData, dispositionFilename } from './multipart-headers.js';
import type { RawUpload, ReceiveOptions, ReceivedFile } from './types.js';

const formidable = () => lazyRequire('formidable') as typeof import('formidable');

const MiB = 1024 * 1024;
const DEFAULT_MAX_FIELDS_SIZE = 20 * MiB;
const DEFAULT_MAX_FIELDS = 1000;
const DEFAULT_MAX_SIGNATURE_SIZE = 1 * MiB;

interface PartInfo {
  field: string;
  filename: string;
  contentType: string | null;
}

interface ReceivedPart {
  info: PartInfo;
  writer: HashingFileWriter;
}

/** What formidable hands to `fileWriteStreamHandler` (its typings leave these out). */
interface FormidableFile {
  newFilename: string;
  filepath: string;
}

type PartWithHeaders = Part & { headers?: Record<string, string | undefined> };

export async function receiveUpload(req: IncomingMessage, opts: ReceiveOptions): Promise<RawUpload> {
  assertMultipartFormData(req.headers['content-type']);

  const fields: Record<string, string[]> = Object.create(null);
  const partsById = new Map<string, PartInfo>();
  const received = new Map<string, ReceivedPart>();
  const writers: HashingFileWriter[] = [];
  /** Every stream handed to formidable, the refusing ones included. */
  const streams: Writable[] = [];
  let failed = false;

  const fileLimits = fileLimitsFor(opts);

  const refuse = (error: Error): Writable => {
    const stream = failingWriter(error);
    streams.push(stream);
    return stream;
  };
  const openWriter = (file: FormidableFile): Writable => {
    const info = partsById.get(file.newFilename);
    if (failed || !info) return refuse(new Error('upload already failed'));
    const limits = Object.hasOwn(fileLimits, info.field) ? fileLimits[info.field] : undefined;
    if (!limits) return refuse(new LarderError(400, 'unexpected_file', `${info.field}: Should not be a tuple.`));
    if (received.has(info.field)) {
      return refuse(new LarderError(400, 'repeated_file', `Upload payload has more than one '${info.field}' file.`));
    }
    const writer = new HashingFileWriter(file.filepath, limits);
    writers.push(writer);
    streams.push(writer);
    received.set(info.field, { info, writer });
    return writer;
  };

  const maxFieldsSize = opts.maxFieldsSize ?? DEFAULT_MAX_FIELDS_SIZE;
  const maxFields = opts.maxFields ?? DEFAULT_MAX_FIELDS;
  const form = new (formidable().Formidable)({
    uploadDir: opts.tmpDir,
    enabledPlugins: [formidable().multipart],
    maxFields,
    maxFieldsSize,
    // The hashing writers enforce the per-file limits while streaming; formidable's own checks would
    // only look at the end of a part.
    maxFileSize: Infinity,
    maxTotalFileSize: Infinity,
    allowEmptyFiles: true,
    minFileSize: 0,
    filename: (_name, _ext, part) => {
      const id = `larder-upload-${randomUUID()}`;
      partsById.set(id, describePart(part as PartWithHeaders));
      return id;
    },
    fileWriteStreamHandler: (file) => openWriter(file as unknown as FormidableFile),
  });

  // Formidable calls a part a file when it has a Content-Type; here the filename parameter decides
  // (RFC 7578), so a file part without a Content-Type still reaches validation, which rejects it.
  form.onPart = (part: Part) => {
    if (failed || !part.name) return;
    const isFile = dispositionFilename((part as PartWithHeaders).headers?.['content-disposition']) !== null;
    part.mimetype = isFile ? part.mimetype || 'application/octet-stream' : null;
    return form._handlePart(part);
  };
  holdRequestUntilWritten(form);
  form.on('field', (name, value) => {
    (fields[name] ??= []).push(value);
  });
  form.on('error', () => {
    failed = true;
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
    await Promise.race([form.parse(req), abort.promise]);
    // A writer's 'error' event waits for its file to close, so formidable may finish the part (and the
    // form) before it hears of the failure; `errored` is set at once.
    const streamError = streams.find((stream) => stream.errored)?.errored;
    if (streamError) throw streamError;
  } catch (err) {
    failed = true;
    await cleanup();
    if (!req.destroyed) req.resume();
    throw toLarderError(err, { maxFieldsSize, maxFields });
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
      tooLarge: () => new LarderError(413, 'file_too_large', `File too large. Limit is ${formatSize(opts.maxFileSize)}.`),
    },
    gpg_signature: {
      maxBytes: maxSignatureSize,
      tooLarge: () =>
        new LarderError(413, 'signature_too_large', `Signature file too large. Limit is ${formatSize(maxSignatureSize)}.`),
    },
  };
}

/**
 * Formidable pauses the request before each file write and resumes it when that write is done, but one
 * network chunk can become several writes, so a single finished write used to let the next chunk in
 * while others were still queued: the queue, and memory, grew with the file. Counting makes the request
 * resume only once every write it started has reached the disk.
 */
function holdRequestUntilWritten(form: InstanceType<typeof import('formidable').Formidable>): void {
  const flow = form as unknown as { pause(): boolean; resume(): boolean };
  const pause = flow.pause.bind(flow);
  const resume = flow.resume.bind(flow);
  let pending = 0;
  flow.pause = () => {
    pending += 1;
    return pause();
  };
  flow.resume = () => {
    pending = Math.max(0, pending - 1);
    return pending === 0 ? resume() : true;
  };
}

function describePart(part: PartWithHeaders): PartInfo {
  const headers = part.headers ?? {};
  return {
    field: part.name ?? '',
    filename: dispositionFilename(headers['content-disposition']) ?? part.originalFilename ?? '',
    contentType: headers['content-type']?.trim() || null,
  };
}

function toReceivedFile({ info, writer }: ReceivedPart): ReceivedFile {
  return { path: writer.path, filename: info.filename, contentType: info.contentType, ...writer.digests };
}

function failingWriter(error: Error): Writable {
  return new Writable({
    construct: (callback) => callback(error),
    write: (_chunk, _encoding, callback) => callback(),
  });
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

const abortedError = () =>
  new LarderError(400, 'upload_aborted', 'Upload aborted: the request body ended before it was complete.');

function toLarderError(err: unknown, limits: { maxFieldsSize: number; maxFields: number }): unknown {
  if (err instanceof LarderError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && typeof code === 'number' && 'httpCode' in err) {
    switch (code) {
      case formidable().errors.aborted:
        return abortedError();
      case formidable().errors.maxFieldsSizeExceeded:
        return new LarderError(413, 'fields_too_large', `Form fields too large. Limit is ${formatSize(limits.maxFieldsSize)}.`);
      case formidable().errors.maxFieldsExceeded:
        return new LarderError(413, 'too_many_fields', `Too many form fields. Limit is ${limits.maxFields}.`);
      case formidable().errors.malformedMultipart:
        return invalidMultipart('the body is not well-formed multipart/form-data or ends before the closing boundary');
      case formidable().errors.missingMultipartBoundary:
        return invalidMultipart('the Content-Type has no boundary parameter');
      case formidable().errors.unknownTransferEncoding:
        return invalidMultipart('a part uses an unsupported Content-Transfer-Encoding');
      case formidable().errors.missingContentType:
      case formidable().errors.noParser:
        return new LarderError(415, 'unsupported_media_type', 'Upload with multipart/form-data.');
      default:
        return invalidMultipart(err.message);
    }
  }
  if (code === 'ECONNRESET' || (err instanceof Error && err.message === 'aborted')) return abortedError();
  return err;
}

const invalidMultipart = (detail: string) => new LarderError(400, 'invalid_multipart', `Invalid multipart body: ${detail}.`);

/** `100 MB` for 100 MiB, as PyPI words its limits. */
export function formatSize(bytes: number): string {
  const round = (n: number) => String(Number(n.toFixed(1)));
  if (bytes >= 1024 * MiB) return `${round(bytes / (1024 * MiB))} GB`;
  if (bytes >= MiB) return `${round(bytes / MiB)} MB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
