/**
 * The S3 client larder's blob store talks through: bounded waits (connection and socket timeouts, a few
 * attempts, and a deadline for each request, its retries included, so that a frozen S3 fails a request in
 * seconds rather than holding it for minutes), path-style addressing when an endpoint is given
 * (S3-compatible servers), and checksums only when an operation requires them, so that S3-compatible
 * servers that do not understand the SDK's default aws-chunked trailing checksums receive plain bodies.
 * Credentials come from the SDK's default chain (`AWS_*` variables, profiles, instance roles) unless the
 * caller passes its own.
 */
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { PutObjectCommand, S3Client, type S3ClientConfig, UploadPartCommand } from '@aws-sdk/client-s3';

export interface S3ClientOptions {
  /** e.g. `http://minio:9000`; AWS's own endpoint for `region` when absent. */
  endpoint?: string;
  /** Default: the SDK's (`AWS_REGION`, the profile). */
  region?: string;
  /** Default: the SDK's default credential chain. */
  credentials?: S3ClientConfig['credentials'];
  /** How long connecting may take. Default 5 s. */
  connectTimeoutMs?: number;
  /** How long a request may take until its answer's headers arrive, its body sent included. Default 30 s. */
  requestTimeoutMs?: number;
  /** How long a connection may carry no byte, while a download streams too. Default 120 s. */
  idleTimeoutMs?: number;
  /** Attempts per request, the first included. Default 3. */
  maxAttempts?: number;
  /** Sockets per host. Default 50. */
  maxSockets?: number;
  /** How long one request may take, its retries included, until its answer's headers arrive. Default 8 s. */
  deadlineMs?: number;
}

export const DEFAULT_S3_DEADLINE_MS = 8000;
/** A request carrying a part's bytes (up to the part size) gets this many deadlines: it has more to send. */
const BODY_DEADLINES = 4;

/** The failure of an S3 request that had no answer by its deadline. */
export class S3DeadlineExceeded extends Error {
  readonly code = 'DeadlineExceeded';

  constructor(readonly limitMs: number) {
    super(`no answer within ${limitMs >= 1000 ? `${limitMs / 1000} s` : `${limitMs} ms`}`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * An S3 client whose every request, lib-storage's parts and paginators' pages included, is aborted when it
 * has no answer by its deadline. The timer stops once the answer's headers are in: a download's body
 * streams on under the idle timeout alone.
 */
class DeadlineS3Client extends S3Client {
  constructor(
    config: S3ClientConfig,
    private readonly deadlineMs: number,
  ) {
    super(config);
  }

  // biome-ignore lint/suspicious/noExplicitAny: S3Client.send is overloaded; this passes every form through.
  override send(command: any, options?: any, callback?: any): any {
    if (typeof options === 'function' || callback !== undefined) return super.send(command, options, callback);
    const limitMs = command instanceof UploadPartCommand || command instanceof PutObjectCommand ? this.deadlineMs * BODY_DEADLINES : this.deadlineMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), limitMs);
    const given = (options as { abortSignal?: AbortSignal } | undefined)?.abortSignal;
    const abortSignal = given ? AbortSignal.any([given, deadline.signal]) : deadline.signal;
    return super.send(command, { ...options, abortSignal }).then(
      (answer: unknown) => {
        clearTimeout(timer);
        return answer;
      },
      (err: unknown) => {
        clearTimeout(timer);
        throw deadline.signal.aborted && !given?.aborted ? new S3DeadlineExceeded(limitMs) : err;
      },
    );
  }
}

export function createS3Client(options: S3ClientOptions): S3Client {
  const maxSockets = options.maxSockets ?? 50;
  return new DeadlineS3Client(
    {
      ...(options.region ? { region: options.region } : {}),
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      maxAttempts: options.maxAttempts ?? 3,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The node:http handler's options (the SDK builds the handler from them).
      requestHandler: {
        connectionTimeout: options.connectTimeoutMs ?? 5000,
        requestTimeout: options.requestTimeoutMs ?? 30_000,
        throwOnRequestTimeout: true,
        socketTimeout: options.idleTimeoutMs ?? 120_000,
        httpAgent: new Agent({ keepAlive: true, maxSockets }),
        httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
      },
    },
    options.deadlineMs ?? DEFAULT_S3_DEADLINE_MS,
  );
}
