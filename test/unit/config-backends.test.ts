/** The shared-backend settings (docs/operations.md, "Running several larders"): defaults, accepted values, and refusals that say what is expected without echoing a password. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';

describe('shared-backend settings', () => {
  test('by default a larder keeps everything under its data directory', () => {
    const config = loadConfig({ env: {} });
    assert.deepEqual(
      [config.databaseUrl, config.blobStore, config.s3Endpoint, config.s3Region, config.s3Redirect, config.sharedDownloadWait, config.sessionSecret],
      [null, null, null, null, false, 60_000, null],
    );
  });

  test('the variables are read as given', () => {
    const config = loadConfig({
      env: {
        LARDER_DATABASE_URL: 'postgresql://larder:pw@db:5432/larder',
        LARDER_BLOB_STORE: 's3://my-bucket/larder/blobs',
        LARDER_S3_ENDPOINT: 'http://minio:9000/',
        LARDER_S3_REGION: 'eu-west-1',
        LARDER_S3_REDIRECT: 'true',
        LARDER_SHARED_DOWNLOAD_WAIT: '90s',
        LARDER_SESSION_SECRET: 'sixteen or more characters',
      },
    });
    assert.equal(config.databaseUrl, 'postgresql://larder:pw@db:5432/larder');
    assert.equal(config.blobStore, 's3://my-bucket/larder/blobs');
    assert.equal(config.s3Endpoint, 'http://minio:9000');
    assert.equal(config.s3Region, 'eu-west-1');
    assert.equal(config.s3Redirect, true);
    assert.equal(config.sharedDownloadWait, 90_000);
    assert.equal(config.sessionSecret, 'sixteen or more characters');
  });

  test('the database pool is 10 connections in all unless set; 3 is the least a node can work with', () => {
    assert.equal(loadConfig({ env: {} }).databasePool, 10);
    assert.equal(loadConfig({ env: { LARDER_DATABASE_POOL: '3' } }).databasePool, 3);
    assert.equal(loadConfig({ env: { LARDER_DATABASE_POOL: ' 40 ' } }).databasePool, 40);
  });

  test('a wrong value is refused with what is expected; a database URL or secret is never echoed', () => {
    const refused = (env: Record<string, string>, expected: RegExp | ((err: Error) => boolean)) => assert.throws(() => loadConfig({ env }), expected);
    refused({ LARDER_DATABASE_URL: 'mysql://root:hunter2@db/larder' }, (err: Error) => /postgres:\/\//.test(err.message) && !err.message.includes('hunter2'));
    refused(
      { LARDER_DATABASE_URL: 'not a url hunter2' },
      (err: Error) => /postgres:\/\/user:password@host:port\/database/.test(err.message) && !err.message.includes('hunter2'),
    );
    refused({ LARDER_BLOB_STORE: '/var/lib/blobs' }, /s3:\/\/bucket\/prefix/);
    refused({ LARDER_BLOB_STORE: 's3://UPPER/prefix' }, /s3:\/\/bucket\/prefix/);
    refused({ LARDER_S3_ENDPOINT: 'minio:9000' }, /http\(s\):\/\/host\[:port\]/);
    for (const pool of ['2', '0', '-5', '4.5', 'ten', '10001']) {
      refused(
        { LARDER_DATABASE_POOL: pool },
        (err: Error) =>
          err.message.includes(`LARDER_DATABASE_POOL="${pool}"`) && /from 3 \(one for LISTEN, one for download locks, one pooled\)/.test(err.message),
      );
    }
    refused({ LARDER_SESSION_SECRET: 'short' }, (err: Error) => /at least 16 characters/.test(err.message) && !err.message.includes('"short"'));
  });

  test('LARDER_S3_DEADLINE bounds each S3 request: 8 s by default, at least 100 ms', () => {
    assert.equal(loadConfig({ env: {} }).s3Deadline, 8000);
    assert.equal(loadConfig({ env: { LARDER_S3_DEADLINE: '3s' } }).s3Deadline, 3000);
    assert.throws(() => loadConfig({ env: { LARDER_S3_DEADLINE: '0' } }), /LARDER_S3_DEADLINE.*at least 100ms/);
    assert.throws(() => loadConfig({ env: { LARDER_S3_DEADLINE: 'soon' } }), /LARDER_S3_DEADLINE/);
  });
});
