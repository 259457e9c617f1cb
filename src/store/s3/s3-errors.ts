/** S3 failures as one-line messages naming the bucket, the endpoint and S3's error code. */
import type { S3Location } from './s3-location.js';

interface SdkError {
  name?: string;
  message?: string;
  code?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

/** The S3 error code of a failure (`NoSuchKey`, `AccessDenied`, `SignatureDoesNotMatch`, …), or the network error's code. */
export function s3ErrorCode(err: unknown): string {
  const e = (err ?? {}) as SdkError;
  const status = e.$metadata?.httpStatusCode;
  // HeadObject answers have no body, so the SDK names the error after the status alone.
  if (e.name === 'NotFound' || (status === 404 && e.name === 'Unknown')) return 'NotFound';
  if (status === 403 && (e.name === 'Forbidden' || e.name === 'Unknown')) return 'AccessDenied';
  if (status === 400 && (e.name === 'BadRequest' || e.name === 'Unknown')) return 'BadRequest';
  return e.Code ?? e.code ?? e.name ?? 'Error';
}

export function isNotFound(err: unknown): boolean {
  const code = s3ErrorCode(err);
  return code === 'NoSuchKey' || code === 'NotFound';
}

export class S3StoreError extends Error {
  /** `ENOENT` for a missing blob, as the filesystem store's errors have. */
  readonly code: string;

  constructor(
    operation: string,
    where: { location: S3Location; endpoint: string },
    readonly s3Code: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(
      `S3 ${operation} on s3://${where.location.bucket}/${where.location.prefix} at ${where.endpoint} failed: ${s3Code}${detail ? ` (${detail})` : ''}`,
      options,
    );
    this.name = 'S3StoreError';
    this.code = s3Code === 'NoSuchKey' || s3Code === 'NotFound' ? 'ENOENT' : s3Code;
  }
}

export function describeS3Error(operation: string, where: { location: S3Location; endpoint: string }, err: unknown): S3StoreError {
  if (err instanceof S3StoreError) return err;
  const code = s3ErrorCode(err);
  const message = ((err as SdkError | undefined)?.message ?? String(err)).split('\n')[0]!;
  const status = (err as SdkError | undefined)?.$metadata?.httpStatusCode;
  const detail = message === code || message === 'UnknownError' || message === '' ? (status ? `HTTP ${status}` : '') : message;
  return new S3StoreError(operation, where, code, detail, { cause: err });
}
