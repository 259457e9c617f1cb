/**
 * Hostile uploads against the real server over real HTTP (issue 25): each is answered with a 4xx whose
 * one-line message names the rule, and the server keeps working. An sdist of 100,000 top-level names, a
 * wheel with two .dist-info directories, a 300-character multipart boundary, a `requires_python` that
 * would end up in an HTML attribute, and every other metadata field pypi.org validates.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildWheel, type BuiltDist } from '../fixtures/dists.js';
import { digestBuffer } from '../fixtures/hashes.js';
import { basicAuth, startLarder, type TestLarder } from '../helpers/larder.js';
import { uploadForm } from '../helpers/upload-form.js';
import { tarData, tarHeader, writeRawTarGz, writeZip } from '../helpers/upload-archives.js';

const CORE = 'See https://packaging.python.org/specifications/core-metadata for more information.';

describe('hostile uploads get a one-line 4xx', () => {
  let dir: string;
  let server: TestLarder;
  let wheel: BuiltDist;
  const alice = basicAuth('alice', 'alice-password');

  const upload = async (dist: BuiltDist, extra: Record<string, string | string[]> = {}) =>
    fetch(`${server.url}/legacy/`, { method: 'POST', body: await uploadForm(dist, extra), headers: { Authorization: alice } });

  const refused = async (res: Response, status: number, message: string) => {
    const body = await res.text();
    assert.equal(res.status, status, body);
    assert.equal(body, `${message}\n`);
    assert.equal(res.statusText, message);
  };

  /** A distribution of `like`'s project and version made of other bytes. */
  const fromFile = async (like: BuiltDist, path: string): Promise<BuiltDist> => ({
    ...like,
    ...(await digestBuffer(await readFile(path))),
    path,
    filename: basename(path),
    packagetype: path.endsWith('.whl') ? 'bdist_wheel' : 'sdist',
    pythonVersion: path.endsWith('.whl') ? 'py3' : 'source',
  });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-hostile-'));
    server = await startLarder();
    await server.addUser('alice', 'alice-password');
    wheel = await buildWheel(join(dir, 'good'), { name: 'hostile-target', version: '1.0' });
  });
  after(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('an sdist of 100,000 top-level names: 400 at the second name', async () => {
    function* members() {
      yield tarHeader('hostile_target-1.0/PKG-INFO', { size: 1 });
      yield tarData('x');
      for (let i = 0; i < 100_000; i++) yield tarHeader(`name-${i}-${'n'.repeat(80)}`, { type: '5' });
    }
    const sdist = await fromFile(wheel, await writeRawTarGz(join(dir, 'hostile_target-1.0.tar.gz'), members()));
    await refused(await upload(sdist), 400, 'Invalid distribution file. Incorrect number of top-level directories in sdist');
  });

  test('an archive entry named in more than 4096 bytes: 400', async () => {
    const path = await writeZip(join(dir, 'hostile_target-1.0.zip'), {
      'hostile_target-1.0/PKG-INFO': 'x',
      [`hostile_target-1.0/${'d'.repeat(4100)}`]: '',
    });
    await refused(await upload(await fromFile(wheel, path)), 400, 'Invalid distribution file. An entry name in the archive is longer than 4096 bytes.');
  });

  test('a wheel with two .dist-info directories, or one named for another version: 400', async () => {
    const twice = await buildWheel(join(dir, 'twice'), {
      name: 'hostile-target',
      version: '1.0',
      extraFiles: { 'other-2.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: other\nVersion: 2.0\n', 'other-2.0.dist-info/WHEEL': 'Wheel-Version: 1.0\n' },
    });
    await refused(
      await upload(twice),
      400,
      "Invalid distribution file. Wheel has more than one .dist-info directory ('other-2.0.dist-info' and 'hostile_target-1.0.dist-info'); pip refuses to install it.",
    );
    const path = await writeZip(join(dir, 'hostile_target-1.0-py3-none-any.whl'), {
      'hostile_target/__init__.py': '',
      'hostile_target-1.1.dist-info/METADATA': 'Metadata-Version: 2.1\nName: hostile-target\nVersion: 1.1\n',
      'hostile_target-1.1.dist-info/WHEEL': 'Wheel-Version: 1.0\n',
    });
    await refused(
      await upload(await fromFile(wheel, path)),
      400,
      "Invalid distribution file. The wheel's .dist-info directory 'hostile_target-1.1.dist-info' does not match its filename: use 'hostile_target-1.0.dist-info'.",
    );
  });

  test('a multipart boundary of 300 characters: 400, not 500', async () => {
    const boundary = 'b'.repeat(300);
    const res = await fetch(`${server.url}/legacy/`, {
      method: 'POST',
      headers: { Authorization: alice, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\nContent-Disposition: form-data; name=":action"\r\n\r\nfile_upload\r\n--${boundary}--\r\n`,
    });
    await refused(res, 400, 'Invalid multipart body: the boundary is 300 characters long, RFC 2046 allows at most 70.');
  });

  test('requires_python must be a PEP 440 specifier set: the attribute-breaking one is refused, a good one published', async () => {
    await refused(
      await upload(wheel, { requires_python: '>=3.8"><script>' }),
      400,
      `'>=3.8"><script>' is invalid for 'requires-python': use PEP 440 version specifiers such as '>=3.9'. ${CORE}`,
    );
    const res = await upload(wheel, { requires_python: '>=3.8, <4' });
    assert.equal(res.status, 200, res.statusText);
    const page = await fetch(`${server.url}/simple/hostile-target/`, { headers: { Accept: 'application/vnd.pypi.simple.v1+json' } });
    const files = ((await page.json()) as { files: { filename: string; 'requires-python'?: string }[] }).files;
    assert.deepEqual(
      files.map((f) => [f.filename, f['requires-python']]),
      [[wheel.filename, '>=3.8, <4']],
    );
  });

  test('every other field pypi.org validates is a 400 naming it', async () => {
    const other = await buildWheel(join(dir, 'fields'), { name: 'hostile-fields', version: '1.0' });
    const cases: [Record<string, string | string[]>, string][] = [
      [{ summary: 'two\nlines' }, `'summary' must be a single line.`],
      [{ summary: 's'.repeat(513) }, `'summary' field must be 512 characters or less.`],
      [{ description_content_type: 'text/html' }, `'description-content-type' must be one of 'text/plain', 'text/x-rst', 'text/markdown', not 'text/html'.`],
      [{ home_page: 'javascript:alert(1)' }, `'javascript:alert(1)' is not a valid url for 'home-page': use an http or https URL.`],
      [{ download_url: 'not a url' }, `'not a url' is not a valid url for 'download-url': use an http or https URL.`],
      [{ project_urls: `${'L'.repeat(33)}, https://example.com` }, `'project-url' label '${'L'.repeat(33)}' must be 32 characters or less.`],
      [{ author_email: 'Jane <jane>' }, `'jane' is not a valid email address for 'author-email': it must have exactly one @-sign.`],
      [
        { maintainer_email: 'x@localhost' },
        `'x@localhost' is not a valid email address for 'maintainer-email': the part after the @-sign is not a domain name with a period.`,
      ],
      [
        { requires_dist: 'foo>=1.0"><script>' },
        `'foo>=1.0"><script>' is invalid for 'requires-dist': expected comma (within version specifier), semicolon (after version specifier) or end.`,
      ],
      [
        { provides_extra: 'bad extra' },
        `'bad extra' is invalid for 'provides-extra': use letters, digits, '.', '_' and '-', starting and ending with a letter or digit.`,
      ],
      [{ dynamic: 'Name' }, `'name' is not allowed as a dynamic field.`],
      [{ license_file: '../LICENSE' }, `'../LICENSE' is invalid for 'license-file', parent directory indicators are not allowed.`],
      [{ license: 'MIT', license_expression: 'MIT' }, 'License is deprecated when License-Expression is present. Only License-Expression should be present.'],
      [{ import_name: 'acme.class' }, `'acme.class' is invalid for 'import-name'; 'class' is a keyword.`],
      [{ version: '1.0.0.dog' }, `'1.0.0.dog' is invalid for 'version'.`],
    ];
    for (const [fields, reason] of cases) await refused(await upload(other, fields), 400, `${reason} ${CORE}`);
    const res = await upload(other, {
      summary: 'One line',
      description_content_type: 'text/markdown; charset=UTF-8; variant=GFM',
      home_page: 'https://example.com',
      project_urls: ['Homepage, https://example.com', 'Bug Tracker, https://example.com/issues'],
      author_email: 'Jane Doe <jane@example.com>, "Doe, John" <john@example.org>',
      requires_dist: ['requests (>=2.0,<3.0)', 'pytest>=7; extra == "test"'],
      provides_extra: 'test',
      keywords: 'a,b',
    });
    assert.equal(res.status, 200, res.statusText);
  });
});
