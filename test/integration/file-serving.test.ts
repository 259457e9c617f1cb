/** Serving stored files: whole, ranges and suffix ranges, for small files (read whole) and large ones (pumped in chunks). */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { publish } from '../helpers/upload-form.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

describe('file serving', () => {
  const dir = suiteTempDir('larder-files-');
  let server: TestLarder;
  const dists: BuiltDist[] = [];

  before(async () => {
    server = await startLarder();
    await server.addUser('alice', 'alice-password');
    dists.push(await buildWheel(dir, { name: 'small-one', version: '1.0' }));
    dists.push(await buildWheel(dir, { name: 'large-one', version: '1.0', dataFile: { bytes: 3_500_000 } }));
    for (const dist of dists) {
      await publish(server.url, basicAuth('alice', 'alice-password'), dist);
    }
  });
  after(async () => {
    await server.close();
  });

  for (const index of [0, 1]) {
    test(`${index ? 'large' : 'small'} file: whole, ranges across chunk boundaries, suffixes, HEAD`, async () => {
      const dist = dists[index]!;
      const bytes = await readFile(dist.path);
      const url = `${server.url}/packages/${dist.name}/${dist.filename}`;
      for (let round = 0; round < 2; round++) {
        const whole = await fetch(url);
        assert.equal(whole.status, 200);
        assert.deepEqual(Buffer.from(await whole.arrayBuffer()), bytes);
      }
      const cases: [string, number, number][] = [
        ['bytes=0-0', 0, 0],
        [`bytes=${bytes.length - 1}-`, bytes.length - 1, bytes.length - 1],
        ['bytes=-1', bytes.length - 1, bytes.length - 1],
        [`bytes=${Math.floor(bytes.length / 3)}-${Math.floor((2 * bytes.length) / 3)}`, Math.floor(bytes.length / 3), Math.floor((2 * bytes.length) / 3)],
        [`bytes=-${Math.min(bytes.length, (1 << 20) + 7)}`, bytes.length - Math.min(bytes.length, (1 << 20) + 7), bytes.length - 1],
      ];
      for (const [header, start, end] of cases) {
        const res = await fetch(url, { headers: { Range: header } });
        assert.equal(res.status, 206, header);
        assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${bytes.length}`, header);
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes.subarray(start, end + 1), header);
      }
      const head = await fetch(url, { method: 'HEAD' });
      assert.equal(head.headers.get('content-length'), String(bytes.length));
      assert.equal(await head.text(), '');
    });
  }
});
