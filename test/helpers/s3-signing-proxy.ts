/**
 * The front of the test S3 server: an HTTP proxy before s3rver or Ceph's RADOS Gateway. It checks every
 * request's SigV4 signature, access key and region (s3rver checks none; RGW takes any region); refuses
 * aws-chunked bodies and flexible checksums (s3rver would store the framing inside the object and check no
 * checksum; RGW 16 checks none either); and lets a test cut chosen requests, see which requests were made, or
 * freeze it (it accepts connections and requests but never answers). A request for RGW goes on as it came,
 * signature included (the gateway's user has the same keys), so RGW checks it again. Before s3rver it also
 * checks the payload's sha256 when one is signed, makes a write to an object key atomic for readers of that
 * key (s3rver writes the final file in place, so a reader could see half an object), and answers
 * AbortMultipartUpload and ListMultipartUploads, which s3rver lacks, from its upload directory.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { checkSignature, type S3Credentials, type S3Refusal } from './s3-sigv4-check.js';

export interface ProxyOptions {
  credentials: S3Credentials;
  /** The S3 server's port on 127.0.0.1. */
  innerPort: number;
  /** s3rver and its directory (for its multipart uploads), or RGW, which needs no help. */
  inner: { kind: 's3rver'; directory: string } | { kind: 'rgw' };
}

export interface LoggedRequest {
  method: string;
  /** Path and query as sent. */
  target: string;
  /** The body's declared length. */
  bytes: number;
  /** Requests in flight when this one came in, itself included. */
  concurrent: number;
}

/** Requests a test asked to cut: the connection is destroyed once `afterBytes` of a matching body went through. */
interface CutRule {
  method: string;
  /** A substring of the request target. */
  match: string;
  afterBytes: number;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** s3rver's upload directory inside a bucket directory (its FilesystemStore layout). */
const UPLOADS_DIR = '._S3rver_uploads';

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function sendError(res: ServerResponse, refusal: S3Refusal): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${xmlEscape(refusal.message)}</Message></Error>`;
  res.writeHead(refusal.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendXml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** An S3RVER-account authorization for s3rver itself, which takes any V4 signature of a known key as valid. */
function innerAuthorization(): Record<string, string> {
  const amzDate = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
  return {
    authorization: `AWS4-HMAC-SHA256 Credential=S3RVER/${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0`,
    'x-amz-date': amzDate,
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export class SigningProxy {
  private readonly server: Server;
  private cuts: CutRule[] = [];
  /** While set, S3 requests (of `method`, when given) are held unanswered (a hung S3); thawing drops their connections. */
  private frozen: { method: string | null; held: Set<ServerResponse> } | null = null;
  /** Every signed request, for tests that check which requests a client made. */
  private log: LoggedRequest[] = [];
  /** Requests being answered now. */
  private inFlight = 0;
  /** Object key → the write to it in flight; readers of the key wait for it. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(private readonly options: ProxyOptions) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendError(res, { status: 500, code: 'InternalError', message: String(err) });
        else res.destroy();
      });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (url.startsWith('/__test/cut')) return this.control(req, res);
    if (url.startsWith('/__test/freeze')) return this.freeze(req, res);
    if (url.startsWith('/__test/log')) {
      const body = JSON.stringify(this.log);
      if (req.method === 'DELETE') this.log = [];
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    if (this.frozen && (this.frozen.method === null || this.frozen.method === req.method)) {
      const { held } = this.frozen;
      held.add(res);
      res.once('close', () => held.delete(res));
      return;
    }
    const refusal = await checkSignature({ method: req.method ?? 'GET', url, headers: req.headers }, this.options.credentials, Date.now());
    if (refusal) return sendError(res, refusal);
    this.inFlight++;
    res.once('close', () => this.inFlight--);
    this.log.push({ method: req.method ?? 'GET', target: url, bytes: Number(req.headers['content-length'] ?? 0), concurrent: this.inFlight });
    const payloadSha = req.headers['x-amz-content-sha256'];
    if (typeof payloadSha === 'string' && payloadSha.startsWith('STREAMING-')) {
      return sendError(res, {
        status: 501,
        code: 'NotImplemented',
        message: `this test server takes no ${payloadSha} (aws-chunked) bodies: set requestChecksumCalculation to WHEN_REQUIRED`,
      });
    }
    // Like several S3-compatible servers, s3rver knows nothing of flexible checksums: refusing them keeps
    // a client that sends them (the SDK's default) from passing tests whose checksums nobody checked.
    const checksumHeader = Object.keys(req.headers).find((name) => name.startsWith('x-amz-checksum-') || name === 'x-amz-sdk-checksum-algorithm');
    if (checksumHeader) {
      return sendError(res, {
        status: 501,
        code: 'NotImplemented',
        message: `this test server does not check ${checksumHeader}: set requestChecksumCalculation and responseChecksumValidation to WHEN_REQUIRED`,
      });
    }
    if (this.options.inner.kind === 'rgw') return this.forward(req, res, req);
    const target = new URL(url, 'http://s3');
    const [, bucket = '', ...keyParts] = target.pathname.split('/');
    const key = keyParts.map(decodeURIComponent).join('/');
    const q = target.searchParams;
    if (req.method === 'DELETE' && key && q.has('uploadId')) return this.abortUpload(res, bucket, q.get('uploadId')!);
    if (req.method === 'GET' && !key && q.has('uploads')) return this.listUploads(res, bucket, q.get('prefix') ?? '');

    let body: Buffer | IncomingMessage = req;
    if (typeof payloadSha === 'string' && SHA256_HEX.test(payloadSha)) {
      body = await readBody(req);
      if (createHash('sha256').update(body).digest('hex') !== payloadSha) {
        return sendError(res, {
          status: 400,
          code: 'XAmzContentSHA256Mismatch',
          message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
        });
      }
    }
    const writesObject = key && ((req.method === 'PUT' && !q.has('uploadId')) || (req.method === 'POST' && q.has('uploadId')) || req.method === 'DELETE');
    const objectId = `${bucket}/${key}`;
    if (!writesObject) {
      await this.writing.get(objectId);
      return this.forward(req, res, body);
    }
    const before = this.writing.get(objectId) ?? Promise.resolve();
    const done = before.then(() => this.forward(req, res, body));
    const settled = done.then(
      () => {},
      () => {},
    );
    this.writing.set(objectId, settled);
    try {
      await done;
    } finally {
      if (this.writing.get(objectId) === settled) this.writing.delete(objectId);
    }
  }

  /** Sends the request on (to s3rver without the client's signature), and the answer back once it is complete. */
  private forward(req: IncomingMessage, res: ServerResponse, body: Buffer | IncomingMessage): Promise<void> {
    const target = new URL(req.url ?? '/', 'http://s3');
    let headers: Record<string, string | string[] | undefined> = req.headers;
    if (this.options.inner.kind === 's3rver') {
      for (const name of [...target.searchParams.keys()]) if (name.startsWith('X-Amz-')) target.searchParams.delete(name);
      headers = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...req.headers, ...innerAuthorization(), host: `127.0.0.1:${this.options.innerPort}` };
    }
    const cut = this.cuts.find((rule) => rule.method === req.method && (req.url ?? '').includes(rule.match));
    return new Promise<void>((resolve, reject) => {
      const inner = httpRequest(
        {
          host: '127.0.0.1',
          port: this.options.innerPort,
          method: req.method,
          path: this.options.inner.kind === 'rgw' ? (req.url ?? '/') : target.pathname + target.search,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.once('end', resolve);
          answer.once('error', reject);
          res.once('close', resolve);
        },
      );
      inner.once('error', reject);
      const cutHere = () => {
        inner.destroy();
        req.socket.destroy();
        resolve();
      };
      if (Buffer.isBuffer(body)) {
        if (cut && body.length > cut.afterBytes) {
          inner.write(body.subarray(0, cut.afterBytes));
          setImmediate(cutHere);
          return;
        }
        inner.end(body);
        return;
      }
      let sent = 0;
      body.on('data', (chunk: Buffer) => {
        sent += chunk.length;
        if (cut && sent > cut.afterBytes) {
          body.pause();
          cutHere();
        } else if (!inner.write(chunk)) {
          body.pause();
          inner.once('drain', () => body.resume());
        }
      });
      body.once('end', () => inner.end());
      body.once('error', (err) => inner.destroy(err));
      req.socket.once('close', () => {
        if (!req.complete) cutHere();
      });
    });
  }

  /** POST /__test/cut?method=PUT&match=partNumber%3D2&afterBytes=1000 adds a rule; DELETE removes them all. */
  private control(req: IncomingMessage, res: ServerResponse): void {
    const q = new URL(req.url ?? '/', 'http://s3').searchParams;
    if (req.method === 'DELETE') this.cuts = [];
    else this.cuts.push({ method: q.get('method') ?? 'PUT', match: q.get('match') ?? '', afterBytes: Number(q.get('afterBytes') ?? 0) });
    res.writeHead(204).end();
  }

  /** POST /__test/freeze[?method=PUT] holds every S3 request (of that method) from then on unanswered; DELETE answers none of them but drops them and thaws. */
  private freeze(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'DELETE') {
      for (const held of this.frozen?.held ?? []) held.socket?.destroy();
      this.frozen = null;
    } else this.frozen ??= { method: new URL(req.url ?? '/', 'http://s3').searchParams.get('method'), held: new Set() };
    res.writeHead(204).end();
  }

  private get s3rverDirectory(): string {
    if (this.options.inner.kind !== 's3rver') throw new Error('only s3rver needs its uploads answered');
    return this.options.inner.directory;
  }

  private async abortUpload(res: ServerResponse, bucket: string, uploadId: string): Promise<void> {
    const dir = join(this.s3rverDirectory, bucket, UPLOADS_DIR, uploadId);
    if (!/^[0-9a-f]+$/.test(uploadId) || !(await stat(dir).catch(() => null))) {
      return sendError(res, { status: 404, code: 'NoSuchUpload', message: 'The specified upload does not exist.' });
    }
    await rm(dir, { recursive: true, force: true });
    res.writeHead(204).end();
  }

  private async listUploads(res: ServerResponse, bucket: string, prefix: string): Promise<void> {
    const dir = join(this.s3rverDirectory, bucket, UPLOADS_DIR);
    const uploads: string[] = [];
    for (const id of await readdir(dir).catch(() => [] as string[])) {
      const key = await readFile(join(dir, id, 'key'), 'utf8').catch(() => null);
      const info = await stat(join(dir, id, 'key')).catch(() => null);
      if (key === null || !info || !key.startsWith(prefix)) continue;
      uploads.push(`<Upload><Key>${xmlEscape(key)}</Key><UploadId>${id}</UploadId><Initiated>${info.mtime.toISOString()}</Initiated></Upload>`);
    }
    sendXml(
      res,
      200,
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult><Bucket>${xmlEscape(bucket)}</Bucket><Prefix>${xmlEscape(prefix)}</Prefix><IsTruncated>false</IsTruncated>${uploads.join('')}</ListMultipartUploadsResult>`,
    );
  }
}
