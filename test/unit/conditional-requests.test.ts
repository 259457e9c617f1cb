/**
 * The request headers a hot route reads, decided by the libraries Koa itself builds on: If-None-Match by
 * `fresh`, Accept-Encoding by `negotiator`, Range by `range-parser`, with larder's own rules on top (one
 * byte range or the whole file; an If-None-Match naming the identity or the gzip form).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { etagListed, gzipEtag } from '../../src/http/etag.js';
import { parseRange } from '../../src/http/file-answer.js';
import Negotiator from 'negotiator';
import { sendsGzip, takesGzip } from '../../src/http/respond.js';

describe('Range', () => {
  const size = 1000;
  test('one byte range is sent, clipped to the file; a suffix range counts from the end', () => {
    assert.deepEqual(parseRange('bytes=10-99', size), { start: 10, end: 99 });
    assert.deepEqual(parseRange('bytes=900-5000', size), { start: 900, end: 999 });
    assert.deepEqual(parseRange('bytes=990-', size), { start: 990, end: 999 });
    assert.deepEqual(parseRange('bytes=-20', size), { start: 980, end: 999 });
    assert.deepEqual(parseRange('bytes=-5000', size), { start: 0, end: 999 });
    assert.deepEqual(parseRange(' bytes=0-0 ', size), { start: 0, end: 0 });
  });

  test('a range starting past the end, or an empty suffix, cannot be satisfied (416)', () => {
    assert.equal(parseRange('bytes=1000-', size), 'unsatisfiable');
    assert.equal(parseRange('bytes=99999999-', size), 'unsatisfiable');
    assert.equal(parseRange('bytes=-0', size), 'unsatisfiable');
  });

  test('no header, another unit, several ranges or a malformed one: the whole file', () => {
    for (const header of [undefined, '', 'items=0-5', 'bytes=0-5,10-20', 'bytes=5-2', 'bytes=a-b', 'bytes=', 'bytes=-', 'bytes 0-5']) {
      assert.equal(parseRange(header, size), null, String(header));
    }
  });
});

describe('If-None-Match', () => {
  const etag = '"abc"';
  test('names the ETag strongly or weakly, in a list, or as *', () => {
    for (const header of ['"abc"', 'W/"abc"', '"x", "abc"', '*']) assert.ok(etagListed(header, etag), header);
  });
  test('another ETag, or none, does not match', () => {
    for (const header of [undefined, '', '"abcd"', '"ab"']) assert.ok(!etagListed(header, etag), String(header));
  });
});

describe('Accept-Encoding', () => {
  test('gzip is taken when named or covered by *, and not at q=0', () => {
    for (const header of ['gzip', 'gzip, deflate', 'deflate, GZIP;q=0.5', '*', 'br;q=1, gzip;q=0.1']) assert.ok(takesGzip(header), header);
    for (const header of [undefined, '', 'identity', 'deflate, br', 'gzip;q=0', 'gzip;q=0, identity', '*;q=0']) assert.ok(!takesGzip(header), String(header));
  });

  test('a header without parameters (read without the parser) is taken exactly as the parser reads it', () => {
    const parsed = (header: string) => new Negotiator({ headers: { 'accept-encoding': header } }).encodings(['gzip']).length > 0;
    const headers = [
      'gzip',
      'GZIP',
      ' gzip ',
      '\tgzip',
      'deflate , gzip , br',
      ',gzip,',
      'deflate,  *',
      'gzip deflate',
      'x-gzip',
      'gzipx',
      'br',
      'identity',
      'deflate, br',
    ];
    for (const header of headers) assert.equal(takesGzip(header), parsed(header), JSON.stringify(header));
  });

  test('a document is gzipped ahead only when it will be sent gzipped with a body', () => {
    const doc = { body: Buffer.alloc(2000, 'a'), etag: '"doc"' };
    assert.ok(sendsGzip({ acceptEncoding: 'gzip', ifNoneMatch: undefined }, doc));
    assert.ok(!sendsGzip({ acceptEncoding: 'gzip', ifNoneMatch: gzipEtag(doc.etag) }, doc), 'the client has the gzip form');
    assert.ok(!sendsGzip({ acceptEncoding: 'gzip', ifNoneMatch: doc.etag }, doc), 'the client has the identity form');
    assert.ok(!sendsGzip({ acceptEncoding: 'gzip', ifNoneMatch: undefined }, { ...doc, body: Buffer.alloc(100) }), 'too small to be worth it');
  });
});
