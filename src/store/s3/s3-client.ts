/**
 * The S3 client larder's blob store talks through: bounded waits (connection and socket timeouts, a few
 * attempts), path-style addressing when an endpoint is given (S3-compatible servers), and checksums only
 * when an operation requires them, so that S3-compatible servers that do not understand the SDK's default
 * aws-chunked trailing checksums receive plain bodies. Credentials come from the SDK's default chain
 * (`AWS_*` variables, profiles, instance roles) unless the caller passes its own.
 */
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

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
}

export function createS3Client(options: S3ClientOptions): S3Client {
  const maxSockets = options.maxSockets ?? 50;
  return new S3Client({
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
  });
}
