import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LarderError } from '../../src/base/errors.js';
import { parseProjectUrls, parseUploadForm, sanitizeValue, toReleaseMetadata } from '../../src/upload/form-fields.js';

describe('sanitizeValue', () => {
  it('drops UNKNOWN, also with whitespace around it', () => {
    assert.equal(sanitizeValue('UNKNOWN'), null);
    assert.equal(sanitizeValue('  UNKNOWN \n'), null);
    assert.equal(sanitizeValue('unknown'), 'unknown');
    assert.equal(sanitizeValue('UNKNOWN project'), 'UNKNOWN project');
  });
  it('turns NUL into the literal text \\x00', () => {
    assert.equal(sanitizeValue('a\0b\0'), 'a\\x00b\\x00');
  });
});

describe('parseUploadForm', () => {
  it('keeps known names, repeats multi-use fields and ignores hyphenated and unknown names', () => {
    const form = parseUploadForm({
      name: ['foo'],
      classifiers: ['A :: B', 'C :: D'],
      requires_dist: ['x>=1', 'y; extra == "t"'],
      'Description-Content-Type': ['text/markdown'],
      'project-url': ['Home, https://x'],
      'Requires-Dist': ['z'],
      frobnicate: ['1'],
    });
    assert.deepEqual(form.single, { name: 'foo' });
    assert.deepEqual(form.multi, { classifiers: ['A :: B', 'C :: D'], requires_dist: ['x>=1', 'y; extra == "t"'] });
  });

  it('treats "", [""] and UNKNOWN as not sent', () => {
    const form = parseUploadForm({
      summary: [''],
      author: ['UNKNOWN'],
      license: [' UNKNOWN '],
      classifiers: [''],
      requires_dist: ['UNKNOWN', 'a', ''],
      keywords: ['a,b'],
    });
    assert.deepEqual(form.single, { keywords: 'a,b' });
    assert.deepEqual(form.multi, { requires_dist: ['a'] });
  });

  it('accepts a single-use field repeated with the same value and refuses different values', () => {
    assert.equal(parseUploadForm({ name: ['foo', 'foo'] }).single.name, 'foo');
    assert.throws(
      () => parseUploadForm({ version: ['1.0', '2.0'] }),
      (e: unknown) => e instanceof LarderError && e.status === 400 && e.message === "Field 'version' was sent more than once with different values.",
    );
  });

  it('is not fooled by a field named __proto__', () => {
    const fields = Object.create(null) as Record<string, string[]>;
    fields['__proto__'] = ['x'];
    fields.name = ['foo'];
    assert.deepEqual(parseUploadForm(fields).single, { name: 'foo' });
  });
});

describe('parseProjectUrls', () => {
  it('splits at the first comma and strips both sides', () => {
    assert.deepEqual(parseProjectUrls(['Home , https://example.com/a,b ', 'Docs,https://d', 'Bare']), {
      Home: 'https://example.com/a,b',
      Docs: 'https://d',
      Bare: '',
    });
  });
  it('is null when there are none', () => {
    assert.equal(parseProjectUrls([]), null);
  });
  it('refuses a duplicate label (after stripping)', () => {
    assert.throws(
      () => parseProjectUrls(['Home, https://a', ' Home ,https://b']),
      (e: unknown) =>
        e instanceof LarderError &&
        e.status === 400 &&
        e.message ===
          "'project_urls' has invalid data (duplicate label 'Home'). See https://packaging.python.org/specifications/core-metadata for more information.",
    );
  });
});

describe('toReleaseMetadata', () => {
  it('maps the legacy names onto the JSON API info shape', () => {
    const meta = toReleaseMetadata(
      parseUploadForm({
        metadata_version: ['2.4'],
        name: ['Foo.Bar'],
        version: ['1.0'],
        summary: ['A thing'],
        description: ['# Hi'],
        description_content_type: ['text/markdown'],
        keywords: ['a, b c'],
        author: ['Ann'],
        author_email: ['ann@example.com'],
        maintainer: ['Bob'],
        maintainer_email: ['bob@example.com'],
        license: ['MIT'],
        license_expression: ['MIT OR Apache-2.0'],
        license_file: ['LICENSE', 'NOTICE'],
        home_page: ['https://home'],
        download_url: ['https://dl'],
        platform: ['linux', 'win32'],
        requires_python: ['>=3.9'],
        requires_dist: ['x'],
        provides_extra: ['test'],
        dynamic: ['Requires-Dist'],
        classifiers: ['Programming Language :: Python'],
        project_urls: ['Source, https://src'],
        supported_platform: ['ignored'],
      }),
    );
    assert.deepEqual(meta, {
      name: 'Foo.Bar',
      version: '1.0',
      summary: 'A thing',
      description: '# Hi',
      description_content_type: 'text/markdown',
      author: 'Ann',
      author_email: 'ann@example.com',
      maintainer: 'Bob',
      maintainer_email: 'bob@example.com',
      license: 'MIT',
      license_expression: 'MIT OR Apache-2.0',
      license_files: ['LICENSE', 'NOTICE'],
      keywords: 'a, b c',
      home_page: 'https://home',
      download_url: 'https://dl',
      platform: 'linux',
      requires_python: '>=3.9',
      requires_dist: ['x'],
      provides_extra: ['test'],
      dynamic: ['Requires-Dist'],
      classifiers: ['Programming Language :: Python'],
      project_urls: { Source: 'https://src' },
    });
  });

  it('uses null for absent fields and [] for no classifiers', () => {
    const meta = toReleaseMetadata(parseUploadForm({ name: ['foo'], version: ['1.0'] }));
    assert.equal(meta.summary, null);
    assert.equal(meta.requires_dist, null);
    assert.equal(meta.provides_extra, null);
    assert.equal(meta.dynamic, null);
    assert.equal(meta.license_files, null);
    assert.equal(meta.project_urls, null);
    assert.equal(meta.platform, null);
    assert.deepEqual(meta.classifiers, []);
  });
});
