import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LarderError } from '../../src/base/errors.js';
import { readWheelMetadata } from '../../src/archive/dist-metadata.js';
import { checkSdist } from '../../src/upload/sdist-check.js';
import { metadataText, paxHeader, tarData, tarHeader, writeRawTarGz, type TarMember, writeTarGz, writeWheel, writeZip } from '../helpers/upload-archives.js';

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

  it('remembers at most 64 .dist-info directories of an upstream wheel', async () => {
    const entries: Record<string, string> = { 'many-1.0.dist-info/METADATA': 'M', 'many-1.0.dist-info/WHEEL': 'W' };
    for (let i = 0; i < 64; i++) entries[`vendored${i}-1.0.dist-info/METADATA`] = 'V';
    const path = await writeZip(join(dir, 'many-1.0-py3-none-any.whl'), entries);
    await rejectsWith(readWheelMetadata(path, 'many-1.0-py3-none-any.whl'), 'Invalid distribution file. Wheel has more than 64 .dist-info directories.');
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

  const TOP = 'Incorrect number of top-level directories in sdist';
  const refusedSdists: [string, string, TarMember[], string][] = [
    [
      'refuses two top-level directories',
      'two-1.0.tar.gz',
      [
        { name: 'two-1.0/PKG-INFO', content: 'x' },
        { name: 'other/file', content: 'y' },
      ],
      TOP,
    ],
    [
      'refuses a file next to the top-level directory',
      'loose-1.0.tar.gz',
      [
        { name: 'loose-1.0/PKG-INFO', content: 'x' },
        { name: 'README', content: 'y' },
      ],
      TOP,
    ],
    ['refuses an empty archive', 'empty-1.0.tar.gz', [], TOP],
    [
      'refuses an sdist without PKG-INFO at the top of its directory',
      'nopkg-1.0.tar.gz',
      [
        { name: 'nopkg-1.0/src/PKG-INFO', content: 'x' },
        { name: 'nopkg-1.0/setup.py', content: '' },
      ],
      'PKG-INFO not found at nopkg-1.0/PKG-INFO',
    ],
    [
      'refuses a PKG-INFO that is a directory',
      'dirpkg-1.0.tar.gz',
      [{ name: 'dirpkg-1.0/PKG-INFO', type: 'directory' }],
      'PKG-INFO not found at dirpkg-1.0/PKG-INFO',
    ],
  ];
  for (const [title, filename, members, message] of refusedSdists) {
    it(title, async () => {
      const path = await writeTarGz(join(dir, filename), members);
      await rejectsWith(checkSdist(path, filename), `Invalid distribution file. ${message}`);
    });
  }

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

describe('archive limits', () => {
  const TOP_LEVEL = 'Invalid distribution file. Incorrect number of top-level directories in sdist';

  it('an sdist is refused at its second top-level name: the headers after it are never read', async () => {
    // A header with a broken checksum right after the second name: a reader that went on would call the file no tar at all.
    const path = await writeRawTarGz(join(dir, 'second-1.0.tar.gz'), [
      tarHeader('second-1.0/PKG-INFO', { size: 1 }),
      tarData('x'),
      tarHeader('intruder', { type: '5' }),
      tarHeader('never-read', { badChecksum: true }),
    ]);
    await rejectsWith(checkSdist(path, 'second-1.0.tar.gz'), TOP_LEVEL);
    const zip = await writeZip(join(dir, 'zsecond-1.0.zip'), { 'zsecond-1.0/PKG-INFO': 'x', 'intruder/a': '', 'zsecond-1.0/b': '' });
    await rejectsWith(checkSdist(zip, 'zsecond-1.0.zip'), TOP_LEVEL);
  });

  it('an sdist of 100,000 top-level names is refused as one with two', async () => {
    function* members() {
      for (let i = 0; i < 100_000; i++) yield tarHeader(`top-level-name-${i}-${'n'.repeat(60)}`, { type: '5' });
    }
    const path = await writeRawTarGz(join(dir, 'many-1.0.tar.gz'), members());
    await rejectsWith(checkSdist(path, 'many-1.0.tar.gz'), TOP_LEVEL);
  });

  it('refuses a tar member named in more than 4096 bytes, by pax or by GNU long name', async () => {
    const long = `long-1.0/${'d'.repeat(4090)}`;
    const pax = await writeRawTarGz(join(dir, 'paxlong-1.0.tar.gz'), [
      tarHeader('long-1.0/PKG-INFO', { size: 1 }),
      tarData('x'),
      ...paxHeader({ path: long }),
      tarHeader('long-1.0/short', { type: '5' }),
    ]);
    const message = 'Invalid distribution file. An entry name in the archive is longer than 4096 bytes.';
    await rejectsWith(checkSdist(pax, 'paxlong-1.0.tar.gz'), message);
    const gnu = await writeRawTarGz(join(dir, 'gnulong-1.0.tar.gz'), [
      tarHeader('././@LongLink', { type: 'L', size: Buffer.byteLength(long) + 1 }),
      tarData(`${long}\0`),
      tarHeader('long-1.0/short', { type: '5' }),
    ]);
    await rejectsWith(checkSdist(gnu, 'gnulong-1.0.tar.gz'), message);
    // 4096 bytes is still a name.
    const fits = await writeRawTarGz(join(dir, 'fits-1.0.tar.gz'), [
      tarHeader('fits-1.0/PKG-INFO', { size: 1 }),
      tarData('x'),
      ...paxHeader({ path: `fits-1.0/${'d'.repeat(4096 - 'fits-1.0/'.length)}` }),
      tarHeader('placeholder', { size: 2 }),
      tarData('yy'),
    ]);
    await checkSdist(fits, 'fits-1.0.tar.gz');
    const zip = await writeZip(join(dir, 'zlong-1.0.zip'), { 'zlong-1.0/PKG-INFO': 'x', [`zlong-1.0/${'z'.repeat(4090)}`]: '' });
    await rejectsWith(checkSdist(zip, 'zlong-1.0.zip'), message);
  });

  it('reads pax paths and sizes, global pax headers and GNU long names as tarfile does', async () => {
    const path = await writeRawTarGz(join(dir, 'pax-1.0.tar.gz'), [
      ...paxHeader({ comment: 'a global header, as git archive writes' }, 'g'),
      ...paxHeader({ path: 'pax-1.0/PKG-INFO', size: '3' }),
      tarHeader('ignored-name', { size: 0 }),
      tarData('abc'),
      tarHeader('././@LongLink', { type: 'L', size: 20 }),
      tarData('pax-1.0/long-name.py'),
      tarHeader('pax-1.0/long-n', { size: 1 }),
      tarData('y'),
    ]);
    await checkSdist(path, 'pax-1.0.tar.gz');
  });

  it('refuses an oversized extended header and a run of extended headers without a member', async () => {
    const big = await writeRawTarGz(join(dir, 'bigpax-1.0.tar.gz'), [
      tarHeader('bigpax-1.0/PKG-INFO', { size: 1 }),
      tarData('x'),
      tarHeader('PaxHeader', { type: 'x', size: 1024 * 1024 + 1 }),
      tarData(Buffer.alloc(1024 * 1024 + 1, 0x61)),
    ]);
    await rejectsWith(checkSdist(big, 'bigpax-1.0.tar.gz'), 'Invalid distribution file. tar archive not accepted: An extended header is larger than 1 MB.');
    const run = await writeRawTarGz(join(dir, 'run-1.0.tar.gz'), Array.from({ length: 9 }, () => paxHeader({ comment: 'again' })).flat());
    await rejectsWith(checkSdist(run, 'run-1.0.tar.gz'), 'Invalid distribution file. tar archive not accepted: Too many extended headers before a member.');
  });

  it('refuses a tar of more than 200,000 members', async () => {
    // Names that do not compress away, so that the compression-ratio rule does not answer first.
    const noise = randomBytes(200_000 * 12).toString('hex');
    function* members() {
      yield tarHeader('lots-1.0/PKG-INFO', { size: 1 });
      yield tarData('x');
      for (let i = 0; i < 200_000; i++) yield tarHeader(`lots-1.0/${noise.slice(i * 24, (i + 1) * 24)}`, { type: '5' });
    }
    const path = await writeRawTarGz(join(dir, 'lots-1.0.tar.gz'), members());
    await rejectsWith(checkSdist(path, 'lots-1.0.tar.gz'), 'Invalid distribution file. The archive has more than 200,000 entries.');
  });

  it('refuses a zip whose end record claims more than 200,000 entries, before reading any', async () => {
    const path = join(dir, 'claims-1.0-py3-none-any.whl');
    const zip64End = Buffer.alloc(56);
    zip64End.writeUInt32LE(0x06064b50, 0);
    zip64End.writeBigUInt64LE(44n, 4);
    zip64End.writeBigUInt64LE(2n ** 40n, 24);
    zip64End.writeBigUInt64LE(2n ** 40n, 32);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(0n, 8);
    locator.writeUInt32LE(1, 16);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(0xffff, 8);
    end.writeUInt16LE(0xffff, 10);
    end.writeUInt32LE(0xffffffff, 12);
    end.writeUInt32LE(0xffffffff, 16);
    await writeFile(path, Buffer.concat([zip64End, locator, end]));
    await rejectsWith(readWheelMetadata(path, 'claims-1.0-py3-none-any.whl'), 'Invalid distribution file. The archive has more than 200,000 entries.');
  });
});

describe('readWheelMetadata for uploads (strict)', () => {
  const strict = { strict: true };

  it('reads the one .dist-info directory, named as the filename once normalized', async () => {
    const metadata = metadataText('Foo.Bar', '1.0');
    const path = await writeWheel(dir, 'foo_bar-1.0-py3-none-any.whl', { distInfo: 'Foo.Bar-1.0.dist-info', metadata });
    assert.equal((await readWheelMetadata(path, 'foo_bar-1.0-py3-none-any.whl', strict)).toString(), metadata);
  });

  it('refuses a second .dist-info directory at once', async () => {
    const path = await writeWheel(dir, 'twice-1.0-py3-none-any.whl', {
      extra: { 'vendored-2.0.dist-info/METADATA': 'Name: vendored\n', 'vendored-2.0.dist-info/WHEEL': 'x' },
    });
    await rejectsWith(
      readWheelMetadata(path, 'twice-1.0-py3-none-any.whl', strict),
      "Invalid distribution file. Wheel has more than one .dist-info directory ('twice-1.0.dist-info' and 'vendored-2.0.dist-info'); pip refuses to install it.",
    );
  });

  it('refuses a .dist-info directory that names another project or version', async () => {
    for (const distInfo of ['other-1.0.dist-info', 'named-2.0.dist-info', 'named.dist-info']) {
      const path = await writeWheel(dir, 'named-1.0-py3-none-any.whl', { distInfo });
      await rejectsWith(
        readWheelMetadata(path, 'named-1.0-py3-none-any.whl', strict),
        `Invalid distribution file. The wheel's .dist-info directory '${distInfo}' does not match its filename: use 'named-1.0.dist-info'.`,
      );
    }
  });

  it('a wheel without any .dist-info directory is told where WHEEL should be', async () => {
    const path = await writeZip(join(dir, 'bare-1.0-py3-none-any.whl'), { 'bare/__init__.py': '' });
    await rejectsWith(readWheelMetadata(path, 'bare-1.0-py3-none-any.whl', strict), 'Invalid distribution file. WHEEL not found at bare-1.0.dist-info/WHEEL');
  });
});
