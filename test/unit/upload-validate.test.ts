import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { blake2b } from 'hash-wasm';
import { LarderError } from '../../src/base/errors.js';
import type { RawUpload, ReceivedFile } from '../../src/upload/types.js';
import { validateUpload } from '../../src/upload/validate.js';

const BYTES = Buffer.from('pretend these are the bytes of a distribution');
const DIGESTS = {
  md5: createHash('md5').update(BYTES).digest('hex'),
  sha256: createHash('sha256').update(BYTES).digest('hex'),
  blake2b_256: await blake2b(BYTES, 256),
};
const CORE = 'See https://packaging.python.org/specifications/core-metadata for more information.';

const file = (filename: string, over: Partial<ReceivedFile> = {}): ReceivedFile => ({
  path: '/nonexistent/upload',
  filename,
  contentType: 'application/octet-stream',
  size: BYTES.length,
  ...DIGESTS,
  ...over,
});

type Fields = Record<string, string | string[] | undefined>;

const WHEEL_FIELDS: Fields = {
  ':action': 'file_upload',
  protocol_version: '1',
  metadata_version: '2.1',
  name: 'foo-bar',
  version: '1.0',
  filetype: 'bdist_wheel',
  pyversion: 'py3',
  sha256_digest: DIGESTS.sha256,
};
const SDIST_FIELDS: Fields = { ...WHEEL_FIELDS, filetype: 'sdist', pyversion: 'source' };

function raw(fields: Fields, content: ReceivedFile | null, signature?: ReceivedFile): RawUpload {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = Array.isArray(v) ? v : [v];
  return {
    fields: out,
    ...(content && { content }),
    ...(signature && { signature }),
    cleanup: async () => undefined,
  };
}

const wheel = (over: Fields = {}, filename = 'foo_bar-1.0-py3-none-any.whl', fileOver: Partial<ReceivedFile> = {}) =>
  validateUpload(raw({ ...WHEEL_FIELDS, ...over }, file(filename, fileOver)));
const sdist = (over: Fields = {}, filename = 'foo_bar-1.0.tar.gz', fileOver: Partial<ReceivedFile> = {}) =>
  validateUpload(raw({ ...SDIST_FIELDS, ...over }, file(filename, fileOver)));

async function rejects(fn: () => Promise<unknown>, status: number, message: string): Promise<void> {
  await assert.rejects(fn, (e: unknown) => {
    assert.ok(e instanceof LarderError, `expected a LarderError, got ${String(e)}`);
    assert.equal(e.message, message);
    assert.equal(e.status, status);
    return true;
  });
}

describe('validateUpload: a good upload', () => {
  it('accepts a wheel and returns everything the store needs', async () => {
    const signature = file('foo_bar-1.0-py3-none-any.whl.asc');
    const result = await validateUpload(
      raw(
        {
          ...WHEEL_FIELDS,
          name: 'Foo.Bar',
          comment: 'built by CI',
          requires_python: '>=3.9',
          summary: 'x\0y',
          classifiers: ['A :: B', 'C :: D'],
          requires_dist: ['a>=1', 'b'],
          project_urls: ['Home, https://h', 'Docs , https://d'],
          'Description-Content-Type': 'text/markdown',
        },
        file('foo_bar-1.0-py3-none-any.whl'),
        signature,
      ),
    );
    assert.equal(result.name, 'Foo.Bar');
    assert.equal(result.project, 'foo-bar');
    assert.equal(result.version, '1.0');
    assert.equal(result.filename, 'foo_bar-1.0-py3-none-any.whl');
    assert.equal(result.filetype, 'bdist_wheel');
    assert.equal(result.pyversion, 'py3');
    assert.equal(result.comment, 'built by CI');
    assert.equal(result.requiresPython, '>=3.9');
    assert.equal(result.signature, signature);
    assert.equal(result.content.sha256, DIGESTS.sha256);
    assert.equal(result.metadata.summary, 'x\\x00y');
    assert.deepEqual(result.metadata.classifiers, ['A :: B', 'C :: D']);
    assert.deepEqual(result.metadata.requires_dist, ['a>=1', 'b']);
    assert.deepEqual(result.metadata.project_urls, { Home: 'https://h', Docs: 'https://d' });
    assert.equal(result.metadata.description_content_type, null);
  });

  it('accepts an sdist with the PEP 625 name, defaulting pyversion to source', async () => {
    const result = await sdist({ pyversion: undefined });
    assert.equal(result.pyversion, 'source');
    assert.equal(result.comment, null);
    assert.equal(result.signature, null);
  });

  it('accepts the legacy sdist name foo-bar-1.0.tar.gz, which pypi.org refuses (docs/uploads.md)', async () => {
    assert.equal((await sdist({}, 'foo-bar-1.0.tar.gz')).filename, 'foo-bar-1.0.tar.gz');
    assert.equal((await sdist({ name: 'Foo.Bar' }, 'Foo.Bar-1.0.tar.gz')).project, 'foo-bar');
  });

  it('accepts .zip sdists', async () => {
    assert.equal((await sdist({}, 'foo_bar-1.0.zip')).filename, 'foo_bar-1.0.zip');
    assert.equal((await sdist({}, 'foo-bar-1.0.zip')).filename, 'foo-bar-1.0.zip');
  });

  it('accepts a name whose last part looks like a version', async () => {
    assert.equal((await sdist({ name: 'py-2', version: '3.1' }, 'py-2-3.1.tar.gz')).project, 'py-2');
  });

  it('compares sdist versions in normalized form', async () => {
    assert.equal((await sdist({ version: '1.0RC1' }, 'foo_bar-1.0rc1.tar.gz')).version, '1.0RC1');
    assert.equal((await sdist({ version: '1.0' }, 'foo-bar-v1.0.tar.gz')).version, '1.0');
  });

  it('accepts local versions, which pypi.org refuses (docs/uploads.md)', async () => {
    assert.equal((await wheel({ version: '1.0+cu121' }, 'foo_bar-1.0+cu121-py3-none-any.whl')).version, '1.0+cu121');
    assert.equal((await sdist({ version: '1.0+local.1' }, 'foo_bar-1.0+local.1.tar.gz')).version, '1.0+local.1');
  });

  it('accepts any syntactically valid platform tag, e.g. linux_x86_64', async () => {
    assert.equal((await wheel({ pyversion: 'cp312' }, 'foo_bar-1.0-cp312-cp312-linux_x86_64.whl')).filename, 'foo_bar-1.0-cp312-cp312-linux_x86_64.whl');
    assert.ok(await wheel({}, 'foo_bar-1.0-1-py2.py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl'));
  });

  it('takes :action from where the receiver put it and protocol_version may be missing', async () => {
    assert.ok(await wheel({ protocol_version: undefined }));
  });

  it('accepts every supported metadata version', async () => {
    for (const v of ['1.0', '1.1', '1.2', '2.1', '2.2', '2.3', '2.4', '2.5']) assert.ok(await wheel({ metadata_version: v }));
  });
});

describe('validateUpload: action and protocol', () => {
  it('answers retired actions with 410', async () => {
    const prereg = 'Project pre-registration is no longer required or supported, upload your files instead.';
    await rejects(() => wheel({ ':action': 'submit' }), 410, prereg);
    await rejects(() => wheel({ ':action': 'submit_pkg_info' }), 410, prereg);
    await rejects(
      () => wheel({ ':action': 'doc_upload' }),
      410,
      'Uploading documentation is no longer supported, we recommend using https://readthedocs.org/.',
    );
  });
  it('refuses a missing or unknown action with 400', async () => {
    await rejects(() => wheel({ ':action': undefined }), 400, "Missing ':action'. Use ':action=file_upload' to upload a file.");
    await rejects(() => wheel({ ':action': 'list' }), 400, "Unknown action 'list'. Use ':action=file_upload' to upload a file.");
  });
  it('refuses any protocol version but 1', async () => {
    await rejects(() => wheel({ protocol_version: '2' }), 400, 'Unknown protocol version.');
  });
});

describe('validateUpload: form fields', () => {
  it('requires a name', async () => {
    const msg = `'' is an invalid value for Name. Error: This field is required. ${CORE}`;
    await rejects(() => wheel({ name: undefined }), 400, msg);
    await rejects(() => wheel({ name: '' }), 400, msg);
    await rejects(() => wheel({ name: 'UNKNOWN' }), 400, msg);
  });
  it('checks the name against the PEP 508 name pattern, trailing newline included', async () => {
    const rule = "Error: Start and end with a letter or numeral containing only ASCII numeric and '.', '_' and '-'.";
    await rejects(() => wheel({ name: 'foo-' }), 400, `'foo-' is an invalid value for Name. ${rule} ${CORE}`);
    await rejects(() => wheel({ name: 'foo\n' }), 400, `'foo\\n' is an invalid value for Name. ${rule} ${CORE}`);
    await rejects(() => wheel({ name: 'fö' }), 400, `'fö' is an invalid value for Name. ${rule} ${CORE}`);
  });
  it('checks filetype', async () => {
    await rejects(() => wheel({ filetype: undefined }), 400, 'Invalid value for filetype. Error: This field is required.');
    await rejects(() => wheel({ filetype: 'bdist_egg' }), 400, 'Invalid value for filetype. Error: Use a known file type.');
  });
  it('checks pyversion', async () => {
    await rejects(
      () => wheel({ pyversion: undefined }),
      400,
      'Invalid value for pyversion. Error: Python version is required for binary distribution uploads.',
    );
    await rejects(() => sdist({ pyversion: 'py3' }), 400, "Invalid value for pyversion. Error: Use 'source' as Python version for an sdist.");
  });
  it('needs at least one digest, each well-formed', async () => {
    await rejects(() => wheel({ sha256_digest: undefined }), 400, 'Error: Include at least one message digest.');
    await rejects(() => wheel({ sha256_digest: 'abc' }), 400, 'Invalid value for sha256_digest. Error: Use a valid, hex-encoded, SHA256 message digest.');
    await rejects(
      () => wheel({ blake2_256_digest: 'z'.repeat(64) }),
      400,
      'Invalid value for blake2_256_digest. Error: Use a valid, hex-encoded, BLAKE2 message digest.',
    );
    await rejects(
      () => wheel({ md5_digest: 'nope' }),
      400,
      'Invalid value for md5_digest. Error: Use a valid, hex-encoded or unpadded URL-safe base64-encoded, MD5 message digest.',
    );
  });
});

describe('validateUpload: digests against the file', () => {
  const mismatch = 'The digest supplied does not match a digest calculated from the uploaded file.';
  const md5Base64 = Buffer.from(DIGESTS.md5, 'hex').toString('base64url');

  it('accepts md5 alone, as hex or as unpadded URL-safe base64', async () => {
    assert.ok(await wheel({ sha256_digest: undefined, md5_digest: DIGESTS.md5 }));
    assert.ok(await wheel({ sha256_digest: undefined, md5_digest: DIGESTS.md5.toUpperCase() }));
    assert.equal(md5Base64.length, 22);
    assert.ok(await wheel({ sha256_digest: undefined, md5_digest: md5Base64 }));
  });
  it('accepts blake2 alone and hex digests in upper case', async () => {
    assert.ok(await wheel({ sha256_digest: undefined, blake2_256_digest: DIGESTS.blake2b_256 }));
    assert.ok(await wheel({ sha256_digest: DIGESTS.sha256.toUpperCase() }));
  });
  it('refuses a sha256 that does not match', async () => {
    await rejects(() => wheel({ sha256_digest: '0'.repeat(64) }), 400, mismatch);
  });
  it('refuses when any one of several digests does not match', async () => {
    await rejects(() => wheel({ blake2_256_digest: 'f'.repeat(64) }), 400, mismatch);
    await rejects(() => wheel({ md5_digest: '0'.repeat(32) }), 400, mismatch);
    const wrongBase64 = Buffer.alloc(16).toString('base64url');
    await rejects(() => wheel({ md5_digest: wrongBase64 }), 400, mismatch);
    // base64 is case-sensitive: flipping the case of a letter changes the digest.
    const flipped = md5Base64.replace(/[a-z]/, (c) => c.toUpperCase());
    if (flipped !== md5Base64) await rejects(() => wheel({ md5_digest: flipped }), 400, mismatch);
  });
});

describe('validateUpload: metadata', () => {
  it('checks metadata_version (2.0 refused)', async () => {
    await rejects(() => wheel({ metadata_version: undefined }), 400, `None is not a valid metadata version. ${CORE}`);
    await rejects(() => wheel({ metadata_version: '2.0' }), 400, `'2.0' is not a valid metadata version. ${CORE}`);
    await rejects(() => wheel({ metadata_version: '2.6' }), 400, `'2.6' is not a valid metadata version. ${CORE}`);
  });
  it('checks version', async () => {
    await rejects(() => wheel({ version: undefined }), 400, `'version' is a required field. ${CORE}`);
    await rejects(() => wheel({ version: 'dog' }), 400, `'dog' is invalid for 'version'. ${CORE}`);
    await rejects(() => wheel({ version: '1.0\n' }), 400, `'1.0\\n' is invalid for 'version'. ${CORE}`);
  });
  it('refuses a duplicate project_urls label', async () => {
    await rejects(
      () => wheel({ project_urls: ['Home, https://a', 'Home, https://b'] }),
      400,
      `'project_urls' has invalid data (duplicate label 'Home'). ${CORE}`,
    );
  });
});

describe('validateUpload: the file', () => {
  it('needs a content file', async () => {
    await rejects(() => validateUpload(raw(WHEEL_FIELDS, null)), 400, 'Upload payload does not have a file.');
  });
  it('refuses control characters and path separators in the filename', async () => {
    const ctrl = 'Cannot upload a file with non-printable characters (ordinals 0-31) or the DEL character (ordinal 127) in the name.';
    await rejects(() => wheel({}, 'foo_bar-1.0-py3-none-any\n.whl'), 400, ctrl);
    await rejects(() => wheel({}, 'foo_bar-1.0-py3-none-any\x7f.whl'), 400, ctrl);
    const sep = "Cannot upload a file with '/' or '\\' in the name.";
    await rejects(() => wheel({}, '../foo_bar-1.0-py3-none-any.whl'), 400, sep);
    await rejects(() => wheel({}, 'x\\foo_bar-1.0-py3-none-any.whl'), 400, sep);
  });
  it('checks the extension against the filetype', async () => {
    const pep527 = 'See https://www.python.org/dev/peps/pep-0527 for more information.';
    await rejects(() => wheel({}, 'foo_bar-1.0.tar.gz'), 400, `Invalid file extension: Extension .tar.gz is invalid for filetype bdist_wheel. ${pep527}`);
    await rejects(() => sdist({}, 'foo_bar-1.0-py3-none-any.whl'), 400, `Invalid file extension: Extension .whl is invalid for filetype sdist. ${pep527}`);
    await rejects(
      () => wheel({}, 'foo_bar-1.0-py3-none-any.WHL'),
      400,
      `Invalid file extension: Extension .WHL is invalid for filetype bdist_wheel. ${pep527}`,
    );
    const useKnown =
      'Invalid file extension: Use .tar.gz, .whl or .zip extension. See https://www.python.org/dev/peps/pep-0527 and https://peps.python.org/pep-0715/ for more information';
    await rejects(() => sdist({}, 'foo_bar-1.0.tar.bz2'), 400, useKnown);
    await rejects(() => wheel({}, 'foo_bar-1.0.egg'), 400, useKnown);
    await rejects(() => wheel({}, '.whl'), 400, useKnown);
  });
  it('refuses a content part with an image type, and takes one with no Content-Type (as flit sends it)', async () => {
    await rejects(() => wheel({}, undefined, { contentType: 'image/png' }), 400, 'Invalid distribution file.');
    assert.ok(await wheel({}, undefined, { contentType: 'application/zip' }));
    assert.ok(await wheel({}, undefined, { contentType: null }));
  });
});

describe('validateUpload: wheel filenames', () => {
  it('wants the normalized name with underscores', async () => {
    await rejects(
      () => wheel({}, 'Foo_Bar-1.0-py3-none-any.whl'),
      400,
      "Filename 'Foo_Bar-1.0-py3-none-any.whl' should contain the normalized project name 'foo_bar', not 'Foo_Bar'.",
    );
    await rejects(
      () => wheel({}, 'foo.bar-1.0-py3-none-any.whl'),
      400,
      "Filename 'foo.bar-1.0-py3-none-any.whl' should contain the normalized project name 'foo_bar', not 'foo.bar'.",
    );
  });
  it('wants the filename to start with the project', async () => {
    await rejects(() => wheel({}, 'other-1.0-py3-none-any.whl'), 400, "Start filename for 'foo-bar' with 'foo_bar'.");
  });
  it('wants the form version in the filename', async () => {
    await rejects(() => wheel({}, 'foo_bar-2.0-py3-none-any.whl'), 400, "Version in filename should be '1.0' not '2.0'.");
    await rejects(() => wheel({}, 'foo_bar-1.0.0-py3-none-any.whl'), 400, "Version in filename should be '1.0' not '1.0.0'.");
    await rejects(() => wheel({ version: '1.0+cu121' }, 'foo_bar-1.0-py3-none-any.whl'), 400, "Version in filename should be '1.0+cu121' not '1.0'.");
    assert.ok(await wheel({ version: '1.0.post0' }, 'foo_bar-1.0.post0-py3-none-any.whl'));
    assert.ok(await wheel({ version: '1.0-1' }, 'foo_bar-1.0.post1-py3-none-any.whl'));
  });
  it('refuses malformed wheel filenames the way packaging words it', async () => {
    await rejects(() => wheel({}, 'foo_bar-1.0-any.whl'), 400, "Invalid wheel filename (wrong number of parts): 'foo_bar-1.0-any.whl'");
    await rejects(() => wheel({}, 'foo__bar-1.0-py3-none-any.whl'), 400, "Invalid project name: 'foo__bar-1.0-py3-none-any.whl'");
    await rejects(() => wheel({}, 'foo_bar-one-py3-none-any.whl'), 400, "Invalid wheel filename (invalid version): 'foo_bar-one-py3-none-any.whl'");
    await rejects(() => wheel({}, 'foo_bar-1.0-x1-py3-none-any.whl'), 400, "Invalid build number: x1 in 'foo_bar-1.0-x1-py3-none-any.whl'");
    await rejects(
      () => wheel({}, 'foo_bar-1.0-py3-none-linux+x86.whl'),
      400,
      "Binary wheel 'foo_bar-1.0-py3-none-linux+x86.whl' has an unsupported platform tag 'linux+x86'.",
    );
    await rejects(() => wheel({}, 'foo_bar-1.0-py3..-none-any.whl'), 400, "Invalid wheel filename (invalid tag ''): 'foo_bar-1.0-py3..-none-any.whl'");
  });
});

describe('validateUpload: sdist filenames (PEP 625, legacy and .zip forms)', () => {
  it('wants the name part to normalize to the project', async () => {
    await rejects(() => sdist({}, 'other-1.0.tar.gz'), 400, "Filename 'other-1.0.tar.gz' is invalid, should be 'foo_bar-1.0.tar.gz'.");
    await rejects(() => sdist({ version: '1.0.0' }, 'foo-1.0.0.zip'), 400, "Filename 'foo-1.0.0.zip' is invalid, should be 'foo_bar-1.0.0.zip'.");
  });
  it('wants the form version', async () => {
    await rejects(() => sdist({}, 'foo_bar-1.1.tar.gz'), 400, "Version in filename should be '1.0' not '1.1'.");
    await rejects(() => sdist({}, 'foo-bar-1.0.0.tar.gz'), 400, "Version in filename should be '1.0' not '1.0.0'.");
    await rejects(() => sdist({}, 'foo-bar-latest.tar.gz'), 400, "Version in filename should be '1.0' not 'latest'.");
  });
  it('refuses a name with no version part', async () => {
    await rejects(() => sdist({}, 'foobar.tar.gz'), 400, 'Invalid source distribution filename: foobar.tar.gz');
    await rejects(() => sdist({}, '-1.0.tar.gz'), 400, 'Invalid source distribution filename: -1.0.tar.gz');
  });
});

describe('validateUpload: the first failure in Warehouse order wins', () => {
  const cases: [string, Fields, string | undefined, string][] = [
    ['action before protocol', { ':action': 'doc_upload', protocol_version: '9' }, undefined, 'Uploading documentation'],
    ['protocol before name', { protocol_version: '9', name: undefined }, undefined, 'Unknown protocol version.'],
    ['name before filetype', { name: 'x-', filetype: 'egg' }, undefined, "'x-' is an invalid value for Name."],
    ['filetype before pyversion', { filetype: 'egg', pyversion: undefined }, undefined, 'Invalid value for filetype.'],
    ['pyversion before digests', { pyversion: undefined, sha256_digest: undefined }, undefined, 'Invalid value for pyversion.'],
    ['digests before metadata version', { sha256_digest: undefined, metadata_version: '2.0' }, undefined, 'Error: Include'],
    ['metadata version before version', { metadata_version: '2.0', version: 'dog' }, undefined, "'2.0' is not a valid"],
    ['version before project_urls', { version: 'dog', project_urls: ['a,b', 'a,c'] }, undefined, "'dog' is invalid"],
    ['metadata before the file', { project_urls: ['a,b', 'a,c'] }, 'foo_bar-1.0.egg', "'project_urls' has invalid data"],
    ['extension before digest match', { sha256_digest: '0'.repeat(64) }, 'foo_bar-1.0.egg', 'Invalid file extension'],
    ['digest match before wheel name', { sha256_digest: '0'.repeat(64) }, 'Foo_Bar-1.0-py3-none-any.whl', 'The digest supplied'],
    ['wheel name before wheel version', {}, 'Foo_Bar-2.0-py3-none-any.whl', "Filename 'Foo_Bar-2.0"],
  ];
  for (const [title, over, filename, start] of cases) {
    it(title, async () => {
      await assert.rejects(
        () => wheel(over, filename),
        (e: unknown) => e instanceof LarderError && e.message.startsWith(start),
      );
    });
  }
  it('content type before digest match', async () => {
    await assert.rejects(
      () => wheel({ sha256_digest: '0'.repeat(64) }, undefined, { contentType: 'image/png' }),
      (e: unknown) => e instanceof LarderError && e.message === 'Invalid distribution file.',
    );
  });
});
