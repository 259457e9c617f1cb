import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { blake2b } from 'hash-wasm';
import { LarderError } from '../../src/base/errors.js';
import { formatSize } from '../../src/upload/receive.js';
import { startReceiver, type Outcome, type Receiver } from '../helpers/upload-receiver.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const digestsOf = async (bytes: Buffer) => ({
  md5: createHash('md5').update(bytes).digest('hex'),
  sha256: createHash('sha256').update(bytes).digest('hex'),
  blake2b_256: await blake2b(bytes, 256),
});

function expectError(outcome: Outcome, status: number, message: string | RegExp): LarderError {
  assert.equal(outcome.ok, false, 'the upload should have failed');
  const error = (outcome as { error: unknown }).error;
  assert.ok(error instanceof LarderError, `expected a LarderError, got ${String(error)}`);
  assert.equal(error.status, status);
  if (typeof message === 'string') assert.equal(error.message, message);
  else assert.match(error.message, message);
  return error;
}

/** Sends `body` with the given headers over a raw socket and returns the response status line. */
function rawRequest(port: number, headers: Record<string, string>, body: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const head = Object.entries({ Host: 'localhost', Connection: 'close', ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      // No half-close: like real clients, wait for the response with the socket open.
      socket.write(`POST /legacy/ HTTP/1.1\r\n${head}\r\n`);
      socket.write(body);
    });
    let response = '';
    socket.on('data', (d) => (response += d.toString('latin1')));
    socket.on('end', () => resolve(response.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

describe('receiveUpload', () => {
  const tmp = suiteTempDir('larder-receive-');
  let receiver: Receiver;
  const MAX = 64 * 1024;

  before(async () => {
    receiver = await startReceiver({ tmpDir: tmp, maxFileSize: MAX, maxSignatureSize: 1024 });
  });
  after(async () => {
    await receiver.close();
  });
  beforeEach(async () => {
    for (const f of await readdir(tmp)) await rm(join(tmp, f), { force: true });
  });

  /** Posts `form` and returns what the receiver made of it, failing unless it was received whole. */
  const received = async (form: FormData, url = receiver.url) => {
    await fetch(url, { method: 'POST', body: form });
    const outcome = await receiver.next();
    assert.ok(outcome.ok);
    return outcome.upload;
  };
  /** Posts `form`, expects the receiver to refuse it with `status` and `message` and to leave no temporary file; returns the answer. */
  const refused = async (form: FormData, status: number, message: string) => {
    const response = await fetch(receiver.url, { method: 'POST', body: form });
    expectError(await receiver.next(), status, message);
    assert.deepEqual(await readdir(tmp), []);
    return response;
  };

  it('collects repeated fields, streams the file parts to disk and hashes them', async () => {
    const content = randomBytes(40_000);
    const signature = Buffer.from('-----BEGIN PGP SIGNATURE-----\nxyz\n-----END PGP SIGNATURE-----\n');
    const form = new FormData();
    form.append(':action', 'file_upload');
    form.append('name', 'foo-bar');
    form.append('classifiers', 'A :: B');
    form.append('classifiers', 'C :: D');
    form.append('Description-Content-Type', 'text/markdown');
    form.append('project_urls', 'Home, https://example.com');
    form.append('gpg_signature', new Blob([signature], { type: 'application/octet-stream' }), 'foo_bar-1.0.tar.gz.asc');
    form.append('content', new Blob([content], { type: 'application/octet-stream' }), 'foo_bar-1.0.tar.gz');
    const response = await fetch(receiver.url, { method: 'POST', body: form });
    assert.equal(response.status, 200);
    const outcome = await receiver.next();
    assert.ok(outcome.ok);
    const { upload } = outcome;
    try {
      assert.deepEqual(
        { ...upload.fields },
        {
          ':action': ['file_upload'],
          name: ['foo-bar'],
          classifiers: ['A :: B', 'C :: D'],
          'Description-Content-Type': ['text/markdown'],
          project_urls: ['Home, https://example.com'],
        },
      );
      const file = upload.content!;
      assert.equal(file.filename, 'foo_bar-1.0.tar.gz');
      assert.equal(file.contentType, 'application/octet-stream');
      assert.equal(file.size, content.length);
      assert.deepEqual({ md5: file.md5, sha256: file.sha256, blake2b_256: file.blake2b_256 }, await digestsOf(content));
      assert.ok(file.path.startsWith(tmp));
      assert.deepEqual(await readFile(file.path), content);
      const sig = upload.signature!;
      assert.equal(sig.filename, 'foo_bar-1.0.tar.gz.asc');
      assert.deepEqual(await readFile(sig.path), signature);
      assert.equal(sig.sha256, (await digestsOf(signature)).sha256);
    } finally {
      await upload.cleanup();
    }
    assert.deepEqual(await readdir(tmp), []);
    await upload.cleanup(); // a second call is harmless
  });

  it('hashes an empty file', async () => {
    const form = new FormData();
    form.append('content', new Blob([], { type: 'application/octet-stream' }), 'empty.whl');
    const upload = await received(form);
    assert.equal(upload.content!.size, 0);
    assert.equal(upload.content!.sha256, createHash('sha256').digest('hex'));
    await upload.cleanup();
  });

  it('takes :action from the query string when the form has none', async () => {
    const form = new FormData();
    form.append('name', 'x');
    const upload = await received(form, `${receiver.url}?:action=file_upload`);
    assert.deepEqual(upload.fields[':action'], ['file_upload']);
    await upload.cleanup();
  });

  it('prefers the form :action over the query string', async () => {
    const form = new FormData();
    form.append(':action', 'doc_upload');
    assert.deepEqual((await received(form, `${receiver.url}?:action=file_upload`)).fields[':action'], ['doc_upload']);
  });

  it('refuses a file over the limit with 413 and leaves no temporary file', async () => {
    const form = new FormData();
    form.append('name', 'foo');
    form.append('content', new Blob([randomBytes(MAX + 1)], { type: 'application/octet-stream' }), 'foo-1.0.tar.gz');
    const response = await refused(form, 413, 'File too large. Limit is 64 KB.');
    assert.equal(response.status, 413);
    assert.equal(await response.text(), 'File too large. Limit is 64 KB.');
  });

  it('accepts a file of exactly the limit', async () => {
    const form = new FormData();
    form.append('content', new Blob([randomBytes(MAX)], { type: 'application/octet-stream' }), 'foo-1.0.tar.gz');
    const response = await fetch(receiver.url, { method: 'POST', body: form });
    assert.equal(response.status, 200);
    const outcome = await receiver.next();
    assert.ok(outcome.ok);
    assert.equal(outcome.upload.content!.size, MAX);
    await outcome.upload.cleanup();
  });

  it('limits the signature separately', async () => {
    const form = new FormData();
    form.append('gpg_signature', new Blob([randomBytes(2000)]), 'x.asc');
    assert.equal((await refused(form, 413, 'Signature file too large. Limit is 1 KB.')).status, 413);
  });

  it('refuses any other field sent as a file part', async () => {
    const form = new FormData();
    form.append('content', new Blob([randomBytes(100)], { type: 'application/octet-stream' }), 'foo-1.0.tar.gz');
    form.append('name', new Blob(['foo']), 'name.txt');
    assert.equal((await refused(form, 400, 'name: Should not be a tuple.')).status, 400);
  });

  it('refuses two content files', async () => {
    const form = new FormData();
    form.append('content', new Blob([randomBytes(100)]), 'a-1.0.tar.gz');
    form.append('content', new Blob([randomBytes(100)]), 'b-1.0.tar.gz');
    await refused(form, 400, "Upload payload has more than one 'content' file.");
  });

  it('refuses a body that is not multipart/form-data', async () => {
    const json = await fetch(receiver.url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(json.status, 415);
    expectError(await receiver.next(), 415, "Unsupported Content-Type 'application/json'. Upload with multipart/form-data.");

    const urlencoded = await fetch(receiver.url, { method: 'POST', body: new URLSearchParams({ name: 'x' }) });
    assert.equal(urlencoded.status, 415);
    await receiver.next();

    const status = await rawRequest(receiver.port, { 'Content-Length': '5' }, 'hello');
    assert.match(status, /^HTTP\/1\.1 400 /);
    expectError(await receiver.next(), 400, 'Missing Content-Type. Upload with multipart/form-data.');
  });

  it('refuses garbage with 400 Invalid multipart body', async () => {
    const response = await fetch(receiver.url, {
      method: 'POST',
      body: 'this is not multipart at all',
      headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
    });
    assert.equal(response.status, 400);
    expectError(await receiver.next(), 400, /^Invalid multipart body: /);
  });

  it('refuses a multipart content type without a boundary', async () => {
    await fetch(receiver.url, { method: 'POST', body: 'x', headers: { 'content-type': 'multipart/form-data' } });
    expectError(await receiver.next(), 400, 'Invalid multipart body: the Content-Type has no boundary parameter.');
  });

  it('refuses a boundary over the 70 characters of RFC 2046 (or not printable ASCII) with a 400, and takes one of 70', async () => {
    const body = (boundary: string) => `--${boundary}\r\nContent-Disposition: form-data; name=":action"\r\n\r\nfile_upload\r\n--${boundary}--\r\n`;
    for (const length of [71, 300]) {
      const boundary = 'b'.repeat(length);
      const response = await fetch(receiver.url, {
        method: 'POST',
        body: body(boundary),
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      assert.equal(response.status, 400);
      expectError(await receiver.next(), 400, `Invalid multipart body: the boundary is ${length} characters long, RFC 2046 allows at most 70.`);
    }
    await fetch(receiver.url, { method: 'POST', body: 'x', headers: { 'content-type': 'multipart/form-data; boundary="ab\tcd"' } });
    expectError(await receiver.next(), 400, 'Invalid multipart body: the boundary has characters other than printable ASCII, or ends with a space.');
    const longest = `${'-'.repeat(10)}${'b'.repeat(60)}`;
    await fetch(receiver.url, { method: 'POST', body: body(longest), headers: { 'content-type': `multipart/form-data; boundary="${longest}"` } });
    const outcome = await receiver.next();
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.upload.fields[':action'], ['file_upload']);
  });

  it('refuses a part header longer than 8 KB instead of reading a cut-off one', async () => {
    const body = `--XYZ\r\nContent-Disposition: form-data; name=":action"; x="${'a'.repeat(200_000)}"\r\n\r\nfile_upload\r\n--XYZ--\r\n`;
    const response = await fetch(receiver.url, { method: 'POST', body, headers: { 'content-type': 'multipart/form-data; boundary=XYZ' } });
    assert.equal(response.status, 400);
    expectError(await receiver.next(), 400, 'Invalid multipart body: a part header is longer than 8 KB.');
  });

  it('counts parts without a name: a body of many empty parts is refused like too many fields', async () => {
    const body = `${'--XYZ\r\nX-Nothing: here\r\n\r\nv\r\n'.repeat(1003)}--XYZ--\r\n`;
    const response = await fetch(receiver.url, { method: 'POST', body, headers: { 'content-type': 'multipart/form-data; boundary=XYZ' } });
    assert.equal(response.status, 413);
    expectError(await receiver.next(), 413, 'Too many form parts. Limit is 1002.');
  });

  it('refuses a body cut off inside a file part and removes the partial file', async () => {
    const body =
      '--XYZ\r\nContent-Disposition: form-data; name="content"; filename="foo-1.0.tar.gz"\r\n' +
      'Content-Type: application/octet-stream\r\n\r\n' +
      'x'.repeat(5000);
    const status = await rawRequest(receiver.port, { 'Content-Type': 'multipart/form-data; boundary=XYZ', 'Content-Length': String(body.length) }, body);
    assert.match(status, /^HTTP\/1\.1 400 /);
    expectError(await receiver.next(), 400, /^Invalid multipart body: /);
    assert.deepEqual(await readdir(tmp), []);
  });

  it('cleans up when the client aborts mid-upload', async () => {
    const head = '--XYZ\r\nContent-Disposition: form-data; name="content"; filename="foo-1.0.tar.gz"\r\n' + 'Content-Type: application/octet-stream\r\n\r\n';
    const socket = connect(receiver.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(
      'POST /legacy/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=XYZ\r\n' +
        `Content-Length: ${head.length + 50_000}\r\n\r\n${head}${'y'.repeat(10_000)}`,
    );
    // Wait until the server has started writing the temporary file, then vanish.
    for (let i = 0; i < 200 && (await readdir(tmp)).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await readdir(tmp)).length, 1, 'the upload should have reached the disk');
    socket.destroy();
    expectError(await receiver.next(), 400, 'Upload aborted: the request body ended before it was complete.');
    assert.deepEqual(await readdir(tmp), []);
  });

  it('keeps the filename as sent and reports a missing content type as null', async () => {
    const body =
      '--XYZ\r\nContent-Disposition: form-data; name="content"; filename="..\\\\evil\\\\foo-1.0.tar.gz"\r\n\r\n' +
      'abc\r\n' +
      '--XYZ\r\nContent-Disposition: form-data; name="comment"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n' +
      'hello\r\n--XYZ--\r\n';
    await rawRequest(receiver.port, { 'Content-Type': 'multipart/form-data; boundary=XYZ', 'Content-Length': String(body.length) }, body);
    const outcome = await receiver.next();
    assert.ok(outcome.ok, String((outcome as { error?: unknown }).error));
    assert.equal(outcome.upload.content!.filename, '..\\evil\\foo-1.0.tar.gz');
    assert.equal(outcome.upload.content!.contentType, null);
    assert.equal(outcome.upload.content!.size, 3);
    // A text part with a Content-Type but no filename is a field, not a file.
    assert.deepEqual(outcome.upload.fields.comment, ['hello']);
    await outcome.upload.cleanup();
  });

  it('takes a file part without a Content-Type, as flit sends it', async () => {
    // flit's upload.py posts `files={'content': (name, bytes)}` with requests; urllib3 then writes the
    // file part with a Content-Disposition filename and no Content-Type, after the text fields.
    const content = randomBytes(3000);
    const boundary = randomBytes(16).toString('hex');
    const part = (headers: string, value: Buffer | string) =>
      Buffer.concat([Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), Buffer.from(value), Buffer.from('\r\n')]);
    const body = Buffer.concat([
      part('Content-Disposition: form-data; name=":action"', 'file_upload'),
      part('Content-Disposition: form-data; name="name"', 'foo'),
      part('Content-Disposition: form-data; name="classifiers"', 'A :: B'),
      part('Content-Disposition: form-data; name="classifiers"', 'C :: D'),
      part('Content-Disposition: form-data; name="protocol_version"', '1'),
      part('Content-Disposition: form-data; name="content"; filename="foo-1.0.tar.gz"', content),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const response = await fetch(receiver.url, {
      method: 'POST',
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    assert.equal(response.status, 200);
    const outcome = await receiver.next();
    assert.ok(outcome.ok, String((outcome as { error?: unknown }).error));
    try {
      assert.deepEqual(outcome.upload.fields.classifiers, ['A :: B', 'C :: D']);
      const file = outcome.upload.content!;
      assert.equal(file.filename, 'foo-1.0.tar.gz');
      assert.equal(file.contentType, null);
      assert.equal(file.sha256, (await digestsOf(content)).sha256);
      assert.deepEqual(await readFile(file.path), content);
    } finally {
      await outcome.upload.cleanup();
    }
  });

  it('treats a content part without a filename as a text field', async () => {
    const form = new FormData();
    form.append('content', 'not a file');
    assert.equal((await received(form)).content, undefined);
  });

  it('enforces the size limit on text fields', async () => {
    const small = await startReceiver({ tmpDir: tmp, maxFileSize: MAX, maxFieldsSize: 1000 });
    try {
      const form = new FormData();
      form.append('description', 'd'.repeat(2000));
      const response = await fetch(small.url, { method: 'POST', body: form });
      assert.equal(response.status, 413);
      expectError(await small.next(), 413, 'Form fields too large. Limit is 1000 bytes.');
    } finally {
      await small.close();
    }
  });
});

describe('receiveUpload with a large file', () => {
  it('streams 48 MiB without holding it in memory', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'larder-receive-big-'));
    const receiver = await startReceiver({ tmpDir: tmp, maxFileSize: 100 * 1024 * 1024 });
    try {
      const chunk = randomBytes(1024 * 1024);
      const total = 48;
      const expected = createHash('sha256');
      for (let i = 0; i < total; i++) expected.update(chunk);
      const boundary = 'BIGBOUNDARY';
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="content"; filename="big-1.0.tar.gz"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      // Garbage buffers linger until a collection, so measure what survives one, every fourth chunk sent (a full
      // collection of a test process's heap is slow; buffers held for the whole upload would still show).
      setFlagsFromString('--expose-gc');
      const gc = (runInNewContext('typeof gc === "function" ? gc : undefined') ?? globalThis.gc) as (() => void) | undefined;
      assert.ok(gc, 'this test needs a gc() function');
      gc();
      const baseline = process.memoryUsage().arrayBuffers;
      let peak = baseline;
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent % 4 === 0) {
            gc();
            peak = Math.max(peak, process.memoryUsage().arrayBuffers);
          }
          if (sent === 0) controller.enqueue(head);
          if (sent < total) controller.enqueue(chunk);
          else {
            controller.enqueue(tail);
            controller.close();
          }
          sent++;
        },
      });
      const response = await fetch(receiver.url, {
        method: 'POST',
        body,
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + total * chunk.length + tail.length),
        },
        duplex: 'half',
      } as RequestInit);
      assert.equal(response.status, 200);
      const outcome = await receiver.next();
      assert.ok(outcome.ok);
      const file = outcome.upload.content!;
      assert.equal(file.size, total * chunk.length);
      assert.equal(file.sha256, expected.digest('hex'));
      assert.equal((await stat(file.path)).size, file.size);
      // Without streaming the whole 48 MiB would sit in buffers at once.
      assert.ok(peak - baseline < 24 * 1024 * 1024, `buffers grew by ${((peak - baseline) / 1048576).toFixed(1)} MiB`);
      await outcome.upload.cleanup();
    } finally {
      await receiver.close();
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe('formatSize', () => {
  it('words limits as PyPI does', () => {
    assert.equal(formatSize(100 * 1024 * 1024), '100 MB');
    assert.equal(formatSize(1.5 * 1024 * 1024), '1.5 MB');
    assert.equal(formatSize(2 * 1024 * 1024 * 1024), '2 GB');
    assert.equal(formatSize(64 * 1024), '64 KB');
    assert.equal(formatSize(1000), '1000 bytes');
  });
});
