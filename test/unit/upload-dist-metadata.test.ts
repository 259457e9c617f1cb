import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LarderError } from '../../src/base/errors.js';
import { checkSdist, readWheelMetadata } from '../../src/upload/dist-metadata.js';
import { metadataText, writeTarGz, writeWheel, writeZip } from './helpers/upload-archives.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-dist-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rejectsWith(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof LarderError, `expected a LarderError, got ${String(e)}`);
    assert.equal(e.status, 400);
    assert.equal(e.message, message);
    return true;
  });
}

describe('readWheelMetadata', () => {
  it('returns the exact METADATA bytes of the dist-info named in the filename', async () => {
    const metadata = Buffer.from(metadataText('foo-bar', '1.0', 'Requires-Dist: x\r\nSummary: ünïcode\n\nBody\n'));
    const path = await writeWheel(dir, 'foo_bar-1.0-py3-none-any.whl', {
      metadata,
      // A second dist-info (a vendored package) must not confuse the lookup.
      extra: { 'vendored-2.0.dist-info/METADATA': 'Name: vendored\n', 'vendored-2.0.dist-info/WHEEL': 'x' },
    });
    assert.deepEqual(await readWheelMetadata(path, 'foo_bar-1.0-py3-none-any.whl'), metadata);
  });

  it('reads a wheel kept elsewhere by ranges, without reading the rest of it', async () => {
    const metadata = Buffer.from(metadataText('ranged', '1.0', 'Requires-Dist: dep>=2\n'));
    // Incompressible bytes before METADATA: a reader that fetched the whole wheel would read them.
    const path = await writeWheel(dir, 'ranged-1.0-py3-none-any.whl', { metadata, extra: { 'ranged/_data.bin': randomBytes(4 * 1024 * 1024) } });
    const { size } = await stat(path);
    const ranges: { start: number; end: number }[] = [];
    const wheel = {
      size,
      read: async (range: { start: number; end: number }) => {
        ranges.push(range);
        return createReadStream(path, range);
      },
    };
    assert.deepEqual(await readWheelMetadata(wheel, 'ranged-1.0-py3-none-any.whl'), metadata);
    const read = ranges.reduce((sum, r) => sum + r.end - r.start + 1, 0);
    assert.ok(
      ranges.every((r) => r.start >= 0 && r.end < size && r.start <= r.end),
      JSON.stringify(ranges),
    );
    assert.ok(read < 256 * 1024, `read ${read} of ${size} bytes`);
  });

  it('a ranged read that fails rejects with its own error, not a verdict on the wheel', async () => {
    const path = await writeWheel(dir, 'failing-1.0-py3-none-any.whl');
    const { size } = await stat(path);
    let reads = 0;
    const wheel = {
      size,
      read: async (range: { start: number; end: number }) => {
        // The end and the central directory read well; the entry's bytes do not.
        if (++reads > 2) throw new Error('the bucket is gone');
        return createReadStream(path, range);
      },
    };
    await assert.rejects(readWheelMetadata(wheel, 'failing-1.0-py3-none-any.whl'), /the bucket is gone/);
    const broken = { size, read: async () => Promise.reject(new Error('no such bucket')) };
    await assert.rejects(readWheelMetadata(broken, 'failing-1.0-py3-none-any.whl'), /no such bucket/);
  });

  it('works on stored (uncompressed) entries too', async () => {
    const path = join(dir, 'stored-1.0-py3-none-any.whl');
    await writeZip(path, { 'stored-1.0.dist-info/METADATA': 'M', 'stored-1.0.dist-info/WHEEL': 'W' }, { compress: false });
    assert.equal((await readWheelMetadata(path, 'stored-1.0-py3-none-any.whl')).toString(), 'M');
  });

  it('falls back to the only *.dist-info/METADATA when the named one is missing', async () => {
    const path = await writeWheel(dir, 'fallback-1.0-py3-none-any.whl', { distInfo: 'Fallback-1.0.dist-info', metadata: 'Name: Fallback\n' });
    assert.equal((await readWheelMetadata(path, 'fallback-1.0-py3-none-any.whl')).toString(), 'Name: Fallback\n');
  });

  it('refuses a file that is not a zip', async () => {
    const path = join(dir, 'notzip-1.0-py3-none-any.whl');
    await writeFile(path, 'this is not a zip file at all');
    await rejectsWith(readWheelMetadata(path, 'notzip-1.0-py3-none-any.whl'), 'Invalid distribution file. File is not a zipfile');
    const empty = join(dir, 'empty-1.0-py3-none-any.whl');
    await writeFile(empty, '');
    await rejectsWith(readWheelMetadata(empty, 'empty-1.0-py3-none-any.whl'), 'Invalid distribution file. File is not a zipfile');
  });

  it('refuses a wheel without WHEEL', async () => {
    const path = await writeWheel(dir, 'nowheel-1.0-py3-none-any.whl', { omit: ['WHEEL'] });
    await rejectsWith(readWheelMetadata(path, 'nowheel-1.0-py3-none-any.whl'), 'Invalid distribution file. WHEEL not found at nowheel-1.0.dist-info/WHEEL');
  });

  it('refuses a wheel without METADATA', async () => {
    const path = await writeWheel(dir, 'nometa-1.0-py3-none-any.whl', { omit: ['METADATA'] });
    await rejectsWith(
      readWheelMetadata(path, 'nometa-1.0-py3-none-any.whl'),
      "Wheel 'nometa-1.0-py3-none-any.whl' does not contain the required METADATA file: nometa-1.0.dist-info/METADATA",
    );
  });

  it('does not guess between several other dist-info directories', async () => {
    const path = join(dir, 'two-1.0-py3-none-any.whl');
    await writeZip(path, {
      'a-1.0.dist-info/METADATA': 'A',
      'a-1.0.dist-info/WHEEL': 'W',
      'b-1.0.dist-info/METADATA': 'B',
      'b-1.0.dist-info/WHEEL': 'W',
      'two-1.0.dist-info/WHEEL': 'W',
    });
    await rejectsWith(
      readWheelMetadata(path, 'two-1.0-py3-none-any.whl'),
      "Wheel 'two-1.0-py3-none-any.whl' does not contain the required METADATA file: two-1.0.dist-info/METADATA",
    );
  });

  it('refuses a METADATA over 10 MB', async () => {
    const path = await writeWheel(dir, 'huge-1.0-py3-none-any.whl', { metadata: Buffer.alloc(10 * 1024 * 1024 + 1, 0x41) });
    await rejectsWith(readWheelMetadata(path, 'huge-1.0-py3-none-any.whl'), 'Invalid distribution file. METADATA is larger than 10 MB');
  });

  it('refuses a decompression bomb', async () => {
    const path = join(dir, 'bomb-1.0-py3-none-any.whl');
    await writeZip(path, {
      'bomb-1.0.dist-info/METADATA': 'M',
      'bomb-1.0.dist-info/WHEEL': 'W',
      'bomb/zeros.bin': Buffer.alloc(70 * 1024 * 1024),
    });
    await rejectsWith(readWheelMetadata(path, 'bomb-1.0-py3-none-any.whl'), 'Invalid distribution file. File exceeds compression ratio of 50');
  });

  it('refuses unsupported compression methods', async () => {
    const path = await writeWheel(dir, 'bzip-1.0-py3-none-any.whl');
    const bytes = await import('node:fs/promises').then((fs) => fs.readFile(path));
    // Rewrite the method (offset 10 in the central directory header) of every entry to 12 (bzip2).
    for (let i = bytes.indexOf('PK\x01\x02', 0, 'latin1'); i !== -1; i = bytes.indexOf('PK\x01\x02', i + 4, 'latin1')) {
      bytes.writeUInt16LE(12, i + 10);
    }
    await writeFile(path, bytes);
    await rejectsWith(readWheelMetadata(path, 'bzip-1.0-py3-none-any.whl'), 'Invalid distribution file. File does not use a supported compression type');
  });
});

describe('checkSdist', () => {
  it('accepts a tar.gz with one top-level directory holding PKG-INFO', async () => {
    const path = await writeTarGz(join(dir, 'foo_bar-1.0.tar.gz'), [
      { name: 'foo_bar-1.0', type: 'directory' },
      { name: 'foo_bar-1.0/PKG-INFO', content: metadataText('foo-bar', '1.0') },
      { name: 'foo_bar-1.0/src/foo_bar/__init__.py', content: '' },
    ]);
    await checkSdist(path, 'foo_bar-1.0.tar.gz');
  });

  it('accepts a tar.gz without directory entries and with a ./ prefix', async () => {
    const path = await writeTarGz(join(dir, 'dot-1.0.tar.gz'), [
      { name: './dot-1.0/PKG-INFO', content: 'x' },
      { name: './dot-1.0/setup.py', content: '' },
    ]);
    await checkSdist(path, 'dot-1.0.tar.gz');
  });

  it('refuses two top-level directories', async () => {
    const path = await writeTarGz(join(dir, 'two-1.0.tar.gz'), [
      { name: 'two-1.0/PKG-INFO', content: 'x' },
      { name: 'other/file', content: 'y' },
    ]);
    await rejectsWith(checkSdist(path, 'two-1.0.tar.gz'), 'Invalid distribution file. Incorrect number of top-level directories in sdist');
  });

  it('refuses a file next to the top-level directory', async () => {
    const path = await writeTarGz(join(dir, 'loose-1.0.tar.gz'), [
      { name: 'loose-1.0/PKG-INFO', content: 'x' },
      { name: 'README', content: 'y' },
    ]);
    await rejectsWith(checkSdist(path, 'loose-1.0.tar.gz'), 'Invalid distribution file. Incorrect number of top-level directories in sdist');
  });

  it('refuses an empty archive', async () => {
    const path = await writeTarGz(join(dir, 'empty-1.0.tar.gz'), []);
    await rejectsWith(checkSdist(path, 'empty-1.0.tar.gz'), 'Invalid distribution file. Incorrect number of top-level directories in sdist');
  });

  it('refuses an sdist without PKG-INFO at the top of its directory', async () => {
    const path = await writeTarGz(join(dir, 'nopkg-1.0.tar.gz'), [
      { name: 'nopkg-1.0/src/PKG-INFO', content: 'x' },
      { name: 'nopkg-1.0/setup.py', content: '' },
    ]);
    await rejectsWith(checkSdist(path, 'nopkg-1.0.tar.gz'), 'Invalid distribution file. PKG-INFO not found at nopkg-1.0/PKG-INFO');
  });

  it('refuses a PKG-INFO that is a directory', async () => {
    const path = await writeTarGz(join(dir, 'dirpkg-1.0.tar.gz'), [{ name: 'dirpkg-1.0/PKG-INFO', type: 'directory' }]);
    await rejectsWith(checkSdist(path, 'dirpkg-1.0.tar.gz'), 'Invalid distribution file. PKG-INFO not found at dirpkg-1.0/PKG-INFO');
  });

  it('refuses something that is not a gzipped tar', async () => {
    const notGz = join(dir, 'plain-1.0.tar.gz');
    await writeFile(notGz, 'hello');
    await rejectsWith(checkSdist(notGz, 'plain-1.0.tar.gz'), 'Invalid distribution file. File is not a tarfile');
    const { gzipSync } = await import('node:zlib');
    const gzNotTar = join(dir, 'gz-1.0.tar.gz');
    await writeFile(gzNotTar, gzipSync(Buffer.alloc(2048, 0x61)));
    await rejectsWith(checkSdist(gzNotTar, 'gz-1.0.tar.gz'), 'Invalid distribution file. File is not a tarfile');
    const truncated = join(dir, 'cut-1.0.tar.gz');
    await writeTarGz(truncated, [{ name: 'cut-1.0/PKG-INFO', content: 'x'.repeat(5000) }]);
    const bytes = await import('node:fs/promises').then((fs) => fs.readFile(truncated));
    await writeFile(truncated, bytes.subarray(0, bytes.length - 30));
    await rejectsWith(checkSdist(truncated, 'cut-1.0.tar.gz'), 'Invalid distribution file. File is not a tarfile');
  });

  it('refuses sparse members', async () => {
    const path = await writeTarGz(join(dir, 'sparse-1.0.tar.gz'), [
      { name: 'sparse-1.0/PKG-INFO', content: 'x' },
      { name: 'sparse-1.0/data', content: 'y', pax: { 'GNU.sparse.major': '1', 'GNU.sparse.minor': '0' } },
    ]);
    await rejectsWith(checkSdist(path, 'sparse-1.0.tar.gz'), 'Invalid distribution file. tar archive not accepted: Sparse members are not allowed.');
  });

  it('refuses a tar.gz decompression bomb', async () => {
    const path = await writeTarGz(join(dir, 'bomb-1.0.tar.gz'), [
      { name: 'bomb-1.0/PKG-INFO', content: 'x' },
      { name: 'bomb-1.0/zeros', content: Buffer.alloc(70 * 1024 * 1024) },
    ]);
    await rejectsWith(checkSdist(path, 'bomb-1.0.tar.gz'), 'Invalid distribution file. File exceeds compression ratio of 50');
  });

  it('checks .zip sdists the same way', async () => {
    const good = await writeZip(join(dir, 'zipped-1.0.zip'), { 'zipped-1.0/PKG-INFO': 'x', 'zipped-1.0/setup.py': '' });
    await checkSdist(good, 'zipped-1.0.zip');
    const two = await writeZip(join(dir, 'ztwo-1.0.zip'), { 'ztwo-1.0/PKG-INFO': 'x', 'b/c': '' });
    await rejectsWith(checkSdist(two, 'ztwo-1.0.zip'), 'Invalid distribution file. Incorrect number of top-level directories in sdist');
    const missing = await writeZip(join(dir, 'zmiss-1.0.zip'), { 'zmiss-1.0/setup.py': '' });
    await rejectsWith(checkSdist(missing, 'zmiss-1.0.zip'), 'Invalid distribution file. PKG-INFO not found at zmiss-1.0/PKG-INFO');
    const notZip = join(dir, 'znot-1.0.zip');
    await writeFile(notZip, 'nope');
    await rejectsWith(checkSdist(notZip, 'znot-1.0.zip'), 'Invalid distribution file. File is not a zipfile');
  });
});
