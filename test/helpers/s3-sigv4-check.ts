/**
 * Checks an S3 request's SigV4 signature the way AWS does, for the test S3 server: the Authorization header
 * form and the presigned query form, the access key, the region in the credential scope, the request time
 * and the presigned URL's expiry. The signing maths is @smithy/signature-v4's: the request is signed again
 * with the known secret and the signatures compared.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** What the server answers for a refused request, as S3 would. */
export interface S3Refusal {
  status: number;
  code: string;
  message: string;
}

export interface IncomingS3Request {
  method: string;
  /** The raw request target: path and query as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

const MAX_SKEW_MS = 15 * 60_000;

const toBytes = (data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);

/** node:crypto as the signer's hash: a plain SHA-256, or an HMAC when given a key. */
class NodeSha256 {
  private hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(toBytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {}
}

/** Decodes a raw query string into its pairs (`+` stays a plus, as S3 reads it). */
function parseQuery(raw: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const part of raw.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    query[name] = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
  }
  return query;
}

/** `20250102T030405Z` → ms. */
function parseAmzDate(value: string | undefined): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : null;
}

const header = (req: IncomingS3Request, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

const refuse = (status: number, code: string, message: string): S3Refusal => ({ status, code, message });

/** Null when the request is correctly signed with `credentials`, else what S3 would answer. */
export async function checkSignature(req: IncomingS3Request, credentials: S3Credentials, nowMs: number): Promise<S3Refusal | null> {
  const qmark = req.url.indexOf('?');
  const path = qmark < 0 ? req.url : req.url.slice(0, qmark);
  const query = parseQuery(qmark < 0 ? '' : req.url.slice(qmark + 1));
  const presigned = 'X-Amz-Algorithm' in query;
  const authorization = header(req, 'authorization');
  if (!presigned && !authorization) return refuse(403, 'AccessDenied', 'Anonymous access is forbidden for this bucket');

  let credential: string;
  let signedHeaders: string[];
  let signature: string;
  let amzDate: string | undefined;
  const expiresIn = Number(query['X-Amz-Expires']);
  if (presigned) {
    if (query['X-Amz-Algorithm'] !== 'AWS4-HMAC-SHA256')
      return refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
    credential = query['X-Amz-Credential'] ?? '';
    signedHeaders = (query['X-Amz-SignedHeaders'] ?? '').split(';');
    signature = query['X-Amz-Signature'] ?? '';
    amzDate = query['X-Amz-Date'];
  } else {
    const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]+)$/.exec(authorization!);
    if (!m) return refuse(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed');
    [credential, signedHeaders, signature] = [m[1]!, m[2]!.split(';'), m[3]!];
    amzDate = header(req, 'x-amz-date');
  }

  const [accessKeyId, , scopeRegion, service, terminator] = credential.split('/');
  if (accessKeyId !== credentials.accessKeyId) {
    return refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  }
  if (service !== 's3' || terminator !== 'aws4_request')
    return refuse(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; incorrect service "${service}"`);
  if (scopeRegion !== credentials.region) {
    return refuse(
      400,
      'AuthorizationHeaderMalformed',
      `The authorization header is malformed; the region '${scopeRegion}' is wrong; expecting '${credentials.region}'`,
    );
  }
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === null) return refuse(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  if (presigned) {
    if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > 604800)
      return refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be between 1 and 604800');
    if (nowMs > signedAt + expiresIn * 1000) return refuse(403, 'AccessDenied', 'Request has expired');
  } else if (Math.abs(nowMs - signedAt) > MAX_SKEW_MS) {
    return refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  }

  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = header(req, name);
    if (value === undefined) return refuse(403, 'SignatureDoesNotMatch', `signed header "${name}" is missing`);
    headers[name] = value;
  }
  const signer = new SignatureV4({
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    region: credentials.region,
    service: 's3',
    sha256: NodeSha256,
    uriEscapePath: false,
  });
  const request = { method: req.method, protocol: 'http:', hostname: 'unused', path, query, headers, body: undefined };
  const signable = new Set(signedHeaders);
  let expected: string | undefined;
  if (presigned) {
    for (const name of ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature']) delete query[name];
    // A presigned URL signs no payload: the hash in its canonical request is UNSIGNED-PAYLOAD.
    const signed = await signer.presign(
      { ...request, headers: { ...headers, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
      {
        signingDate: new Date(signedAt),
        expiresIn,
        signableHeaders: signable,
        unsignableHeaders: new Set(['x-amz-content-sha256']),
        unhoistableHeaders: new Set(['x-amz-content-sha256']),
      },
    );
    expected = signed.query?.['X-Amz-Signature'] as string | undefined;
  } else {
    if (!('x-amz-content-sha256' in headers)) return refuse(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    const signed = await signer.sign(request, { signingDate: new Date(signedAt), signableHeaders: signable });
    expected = /Signature=([0-9a-f]+)$/.exec(signed.headers.authorization ?? '')?.[1];
  }
  const a = Buffer.from(signature);
  const b = Buffer.from(expected ?? '');
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    return refuse(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  }
  return null;
}
