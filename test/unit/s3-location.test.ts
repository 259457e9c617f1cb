/** `s3://bucket/prefix` parsing and the object keys derived from it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseS3Location, S3Keys } from '../../src/store/s3/s3-location.js';

const SHA = 'ab'.padEnd(64, '0');

test('a bucket alone, or with a prefix whose slashes are normalized', () => {
  assert.deepEqual(parseS3Location('s3://my-bucket'), { bucket: 'my-bucket', prefix: '' });
  assert.deepEqual(parseS3Location('s3://my-bucket/'), { bucket: 'my-bucket', prefix: '' });
  assert.deepEqual(parseS3Location('s3://my.bucket.1/larder'), { bucket: 'my.bucket.1', prefix: 'larder/' });
  assert.deepEqual(parseS3Location('s3://b12/a//b/'), { bucket: 'b12', prefix: 'a/b/' });
});

test('malformed locations are refused with a message saying what is wrong', () => {
  assert.throws(() => parseS3Location('my-bucket/prefix'), /is not of the form s3:\/\/bucket\/prefix/);
  assert.throws(() => parseS3Location('https://my-bucket/prefix'), /is not of the form s3:\/\/bucket\/prefix/);
  assert.throws(() => parseS3Location('s3:///prefix'), /"" is not a valid S3 bucket name/);
  assert.throws(() => parseS3Location('s3://My_Bucket'), /"My_Bucket" is not a valid S3 bucket name/);
  assert.throws(() => parseS3Location('s3://ab'), /not a valid S3 bucket name/);
  assert.throws(() => parseS3Location('s3://a..b'), /not a valid S3 bucket name/);
  assert.throws(() => parseS3Location('s3://192.168.1.1'), /not a valid S3 bucket name/);
  assert.throws(() => parseS3Location('s3://bucket/a/../b'), /the prefix may not contain "\.\."/);
});

test('blob keys are content-addressed under the prefix; only those are read back as blobs', () => {
  const keys = new S3Keys(parseS3Location('s3://bucket/larder'));
  assert.equal(keys.blob(SHA), `larder/sha256/ab/${SHA}`);
  assert.equal(keys.shaOf(keys.blob(SHA)), SHA);
  assert.equal(keys.shaOf(`larder/sha256/cd/${SHA}`), null);
  assert.equal(keys.shaOf(keys.tmp(`${SHA}-1`)), null);
  assert.equal(keys.shaOf(`other/sha256/ab/${SHA}`), null);
  assert.throws(() => keys.blob('../x'), /not a sha256/);
  assert.equal(new S3Keys(parseS3Location('s3://bucket')).blob(SHA), `sha256/ab/${SHA}`);
});
