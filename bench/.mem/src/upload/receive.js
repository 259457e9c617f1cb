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
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { lazyRequire } from '../base/lazy-require.js';
import { LarderError } from '../base/errors.js';
import { HashingFileWriter, whenClosed } from './hashing-writer.js';
import { assertMultipartFormData, dispositionFilename, dispositionName, multipartBoundary } from './multipart-headers.js';
const busboy = () => lazyRequire('@fastify/busboy');
const MiB = 1024 * 1024;
const DEFAULT_MAX_FIELDS_SIZE = 20 * MiB;
const DEFAULT_MAX_FIELDS = 1000;
const DEFAULT_MAX_SIGNATURE_SIZE = 1 * MiB;
/** Content-Transfer-Encodings that leave the bytes as they are (RFC 7578 deprecates the others). */
const IDENTITY_ENCODINGS = new Set(['7bit', '8bit', 'binary']);
export async function receiveUpload(req, opts) {
    assertMultipartFormData(req.headers['content-type']);
    const boundary = multipartBoundary(req.headers['content-type']);
    if (!boundary)
        throw invalidMultipart('the Content-Type has no boundary parameter');
    const fields = Object.create(null);
    const received = new Map();
    const writers = [];
    const fileLimits = fileLimitsFor(opts);
    const maxFieldsSize = opts.maxFieldsSize ?? DEFAULT_MAX_FIELDS_SIZE;
    const maxFields = opts.maxFields ?? DEFAULT_MAX_FIELDS;
    let fieldsSize = 0;
    let fieldCount = 0;
    let failed = false;
    let fail = () => undefined;
    const parser = new (busboy().Dicer)({ boundary });
    const collectField = (name, part) => {
        if (++fieldCount > maxFields) {
            fail(new LarderError('too_many_fields', `Too many form fields. Limit is ${maxFields}.`));
            return;
        }
        const chunks = [];
        part.on('data', (chunk) => {
            fieldsSize += chunk.length;
            if (fieldsSize > maxFieldsSize) {
                fail(new LarderError('fields_too_large', `Form fields too large. Limit is ${formatSize(maxFieldsSize)}.`));
            }
            else
                chunks.push(chunk);
        });
        part.on('end', () => {
            if (failed)
                return;
            const values = fields[name] ?? [];
            values.push(Buffer.concat(chunks).toString('utf8'));
            fields[name] = values;
        });
    };
    const receiveFile = (info, part) => {
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
    const onPart = (part) => {
        // Every part is read to its end, or the parser would wait for it forever; a part's bytes only flow
        // after its 'header' event, where the listeners that want them are attached.
        part.on('error', () => undefined);
        part.once('header', (raw) => {
            if (failed)
                return;
            const headers = raw;
            const disposition = headerValue(headers, 'content-disposition');
            const name = dispositionName(disposition);
            if (!name)
                return;
            const encoding = headerValue(headers, 'content-transfer-encoding')?.trim().toLowerCase();
            if (encoding && !IDENTITY_ENCODINGS.has(encoding)) {
                return fail(invalidMultipart('a part uses an unsupported Content-Transfer-Encoding'));
            }
            const filename = dispositionFilename(disposition);
            if (filename === null)
                return collectField(name, part);
            receiveFile({ field: name, filename, contentType: headerValue(headers, 'content-type')?.trim() || null }, part);
        });
        part.resume();
    };
    const parsed = new Promise((resolve, reject) => {
        fail = (error) => {
            if (failed)
                return;
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
    let cleaned = null;
    const cleanup = () => (cleaned ??= Promise.all(writers.map(async (writer) => {
        writer.destroy();
        await whenClosed(writer);
        await rm(writer.path, { force: true });
    })).then(() => undefined));
    const abort = watchForAbort(req);
    try {
        await Promise.race([parsed, abort.promise]);
    }
    catch (err) {
        failed = true;
        req.unpipe(parser);
        await cleanup();
        if (!req.destroyed)
            req.resume();
        throw err;
    }
    finally {
        abort.dispose();
    }
    if (!Object.hasOwn(fields, ':action')) {
        const fromQuery = queryActions(opts.query, req.url);
        if (fromQuery.length > 0)
            fields[':action'] = fromQuery;
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
function fileLimitsFor(opts) {
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
function headerValue(headers, name) {
    const value = headers[name]?.[0];
    return value === undefined ? undefined : Buffer.from(value, 'latin1').toString('utf8');
}
function toReceivedFile({ info, writer }) {
    return { path: writer.path, filename: info.filename, contentType: info.contentType, ...writer.digests };
}
function queryActions(query, url) {
    if (query) {
        const value = query[':action'];
        return value === undefined ? [] : Array.isArray(value) ? value : [value];
    }
    if (!url)
        return [];
    return new URL(url, 'http://larder.invalid').searchParams.getAll(':action');
}
/** Rejects when the client goes away before the whole body arrived. */
function watchForAbort(req) {
    let onClose = () => undefined;
    const promise = new Promise((_resolve, reject) => {
        onClose = () => {
            if (!req.complete)
                reject(abortedError());
        };
        if (req.destroyed)
            onClose();
        else
            req.once('close', onClose);
    });
    return { promise, dispose: () => req.off('close', onClose) };
}
const abortedError = () => new LarderError('upload_aborted', 'Upload aborted: the request body ended before it was complete.');
const invalidMultipart = (detail) => new LarderError('invalid_multipart', `Invalid multipart body: ${detail}.`);
/** `100 MB` for 100 MiB, as PyPI words its limits. */
export function formatSize(bytes) {
    const round = (n) => String(Number(n.toFixed(1)));
    if (bytes >= 1024 * MiB)
        return `${round(bytes / (1024 * MiB))} GB`;
    if (bytes >= MiB)
        return `${round(bytes / MiB)} MB`;
    if (bytes >= 1024)
        return `${round(bytes / 1024)} KB`;
    return `${bytes} bytes`;
}
