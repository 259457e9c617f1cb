/**
 * The metadata fields pypi.org validates at upload, as larder checks them on the form: what real tools
 * write passes, each rule's breach is a 400 naming the field and the rule in one line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LarderError } from '../../src/base/errors.js';
import { parseUploadForm } from '../../src/upload/form-fields.js';
import { checkMetadataFields } from '../../src/upload/metadata-rules.js';

const CORE = 'See https://packaging.python.org/specifications/core-metadata for more information.';

const check = (fields: Record<string, string | string[]>) =>
  checkMetadataFields(parseUploadForm(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]))));

async function refused(fields: Record<string, string | string[]>, reason: string): Promise<void> {
  await assert.rejects(check(fields), (e: unknown) => {
    assert.ok(e instanceof LarderError, `expected a LarderError, got ${String(e)}`);
    assert.equal(e.status, 400);
    assert.equal(e.code, 'invalid_metadata');
    assert.equal(e.message, `${reason} ${CORE}`);
    assert.doesNotMatch(e.message, /\n/);
    return true;
  });
}

describe('metadata rules: what real tools send passes', () => {
  it('takes the fields of a setuptools, flit, poetry, hatch or pdm upload', async () => {
    await check({
      summary: 'A tool that does things, in one line',
      description_content_type: 'text/markdown; charset=UTF-8; variant=GFM',
      author_email: 'Jane Doe <jane@example.com>, "Doe, John" <john.doe+pypi@mail.example.org>, bob@example.co.uk',
      maintainer_email: 'team@corp.example',
      home_page: 'https://example.com/project',
      download_url: 'http://downloads.example.com/x-1.0.tar.gz',
      project_urls: ['Homepage, https://example.com', 'Bug Tracker, https://github.com/x/y/issues?q=is%3Aopen'],
      requires_python: '>=3.8, <4',
      requires_dist: [
        'requests (>=2.0,<3.0)',
        'importlib-metadata (>=1.0) ; python_version < "3.8"',
        'pytest>=7; extra == "test"',
        'internal-lib @ https://files.corp.example/internal_lib-1.0-py3-none-any.whl',
      ],
      provides_extra: ['test', 'docs_build'],
      dynamic: ['Requires-Dist', 'license-file'],
      license_expression: 'MIT',
      license_file: ['LICENSE', 'licenses/third_party.txt'],
      import_name: ['acme.widgets', 'acme._private; private'],
      keywords: 'a, b, c',
      classifiers: ['Programming Language :: Python :: 3', 'Private :: Do Not Upload'],
    });
    await check({ description_content_type: 'text/x-rst' });
    await check({ description_content_type: 'text/plain; charset=utf-8' });
    await check({ requires_python: '' });
  });
});

describe('metadata rules: each field', () => {
  it('requires-python is a PEP 440 specifier set', async () => {
    await refused(
      { requires_python: '>=3.8"><script>' },
      `'>=3.8"><script>' is invalid for 'requires-python': use PEP 440 version specifiers such as '>=3.9'.`,
    );
    await refused({ requires_python: '3.8' }, `'3.8' is invalid for 'requires-python': use PEP 440 version specifiers such as '>=3.9'.`);
    await refused({ requires_python: '~=3' }, `'~=3' is invalid for 'requires-python': use PEP 440 version specifiers such as '>=3.9'.`);
    for (const good of ['>=3.8', '>=3.8,<4', '~=3.8', '!=3.0.*', '==3.*', '>=3.8,']) await check({ requires_python: good });
  });

  it('requires-dist, provides-dist and obsoletes-dist are PEP 508 requirements, with packaging reason', async () => {
    await refused(
      { requires_dist: ['ok>=1', 'foo>=1.0"><script>'] },
      `'foo>=1.0"><script>' is invalid for 'requires-dist': expected comma (within version specifier), semicolon (after version specifier) or end.`,
    );
    await refused({ requires_dist: 'foo; bogus == "x"' }, `'foo; bogus == "x"' is invalid for 'requires-dist': expected a marker variable or quoted string.`);
    await refused({ requires_dist: 'foo>=1.*' }, `'foo>=1.*' is invalid for 'requires-dist': .* suffix can only be used with \`==\` or \`!=\` operators.`);
    const deep = `foo; ${'('.repeat(40)}os_name == "nt"${')'.repeat(40)}`;
    await refused(
      { requires_dist: deep },
      `'${deep.slice(0, 30)}...${deep.slice(-30)}' is invalid for 'requires-dist': marker parentheses nested more than 32 deep.`,
    );
    await refused({ provides_dist: 'foo @ https://x/foo.whl' }, `Can't have direct dependency: 'foo @ https://x/foo.whl' in 'provides-dist'.`);
    await refused(
      { obsoletes_dist: 'foo bar' },
      `'foo bar' is invalid for 'obsoletes-dist': expected semicolon (after name with no version specifier) or end.`,
    );
  });

  it('a parsed value over 64 KB is refused before it is parsed', async () => {
    await refused({ requires_dist: `foo${'>=1,'.repeat(17_000)}` }, `A 'requires-dist' value is longer than 64 KB.`);
  });

  it('long lists are checked in slices, the event loop running between them', async () => {
    const requirements = Array.from({ length: 200 }, (_, i) => `pkg${i} @ https://files.example.com/${'a'.repeat(1000)}.whl`);
    let turns = 0;
    const count = () => {
      turns++;
      if (turns < 100) setImmediate(count);
    };
    setImmediate(count);
    await check({ requires_dist: requirements });
    // 200 KB of requirements, a turn at least every 64 KB: the loop ran between the slices.
    assert.ok(turns >= 3, `the event loop turned ${turns} times`);
  });

  it('summary is one line of at most 512 characters', async () => {
    await refused({ summary: 'one\ntwo' }, `'summary' must be a single line.`);
    await refused({ summary: 'x'.repeat(513) }, `'summary' field must be 512 characters or less.`);
    await check({ summary: 'é'.repeat(512) });
  });

  it('description-content-type is a known type, UTF-8, a known Markdown variant', async () => {
    await refused(
      { description_content_type: 'text/html' },
      `'description-content-type' must be one of 'text/plain', 'text/x-rst', 'text/markdown', not 'text/html'.`,
    );
    await refused({ description_content_type: 'text/plain; charset=latin-1' }, `'description-content-type' can only specify the UTF-8 charset, not 'latin-1'.`);
    await refused(
      { description_content_type: 'text/markdown; variant=Wiki' },
      `valid Markdown variants for 'description-content-type' are 'GFM', 'CommonMark', not 'Wiki'.`,
    );
    await refused(
      { description_content_type: 'text/markdown; charset' },
      `'text/markdown; charset' is not a valid content type for 'description-content-type'.`,
    );
  });

  it('home-page and download-url are http(s) URLs', async () => {
    await refused({ home_page: 'javascript:alert(1)' }, `'javascript:alert(1)' is not a valid url for 'home-page': use an http or https URL.`);
    await refused(
      { download_url: 'https://example.com/"><script>' },
      `'https://example.com/"><script>' is not a valid url for 'download-url': use an http or https URL.`,
    );
    await refused({ home_page: 'example.com' }, `'example.com' is not a valid url for 'home-page': use an http or https URL.`);
  });

  it('project-url has a label of at most 32 characters and an http(s) URL', async () => {
    await refused({ project_urls: ', https://x' }, `'project-url' ', https://x' must have a label.`);
    await refused({ project_urls: `${'L'.repeat(33)}, https://x` }, `'project-url' label '${'L'.repeat(33)}' must be 32 characters or less.`);
    await refused({ project_urls: 'Home' }, `'project-url' 'Home' must have a URL.`);
    await refused({ project_urls: 'Home, ftp://x' }, `'ftp://x' is not a valid url for 'project-url': use an http or https URL.`);
  });

  it('author-email and maintainer-email hold valid addresses', async () => {
    await refused(
      { author_email: 'Jane <jane@example.com>, Bob <bob>' },
      `'bob' is not a valid email address for 'author-email': it must have exactly one @-sign.`,
    );
    await refused(
      { maintainer_email: 'x@localhost' },
      `'x@localhost' is not a valid email address for 'maintainer-email': the part after the @-sign is not a domain name with a period.`,
    );
    await refused(
      { author_email: 'a b@example.com' },
      `'a b@example.com' is not a valid email address for 'author-email': the part before the @-sign has a character or a dot where none is allowed.`,
    );
    await refused(
      { author_email: 'a@-x.com' },
      `'a@-x.com' is not a valid email address for 'author-email': the part after the @-sign is not a valid domain name.`,
    );
  });

  it('provides-extra is a valid name', async () => {
    await refused(
      { provides_extra: 'bad extra' },
      `'bad extra' is invalid for 'provides-extra': use letters, digits, '.', '_' and '-', starting and ending with a letter or digit.`,
    );
  });

  it('dynamic names known fields, never Name or Version', async () => {
    await refused({ dynamic: 'Version' }, `'version' is not allowed as a dynamic field.`);
    await refused({ dynamic: 'Colour' }, `Dynamic field 'colour' is not a valid dynamic field.`);
  });

  it('license-file paths are relative, resolved and written with /', async () => {
    await refused({ license_file: '../LICENSE' }, `'../LICENSE' is invalid for 'license-file', parent directory indicators are not allowed.`);
    await refused({ license_file: 'LICENSE*' }, `'LICENSE*' is invalid for 'license-file', paths must be resolved.`);
    await refused({ license_file: '/etc/LICENSE' }, `'/etc/LICENSE' is invalid for 'license-file', paths must be relative.`);
    await refused({ license_file: 'licenses\\MIT' }, `'licenses\\\\MIT' is invalid for 'license-file', paths must use '/' delimiter.`);
  });

  it('License and License-Expression are not both given', async () => {
    await refused(
      { license: 'MIT License', license_expression: 'MIT' },
      'License is deprecated when License-Expression is present. Only License-Expression should be present.',
    );
  });

  it('import-name and import-namespace are dotted identifiers, optionally private', async () => {
    await refused({ import_name: 'acme.class' }, `'acme.class' is invalid for 'import-name'; 'class' is a keyword.`);
    await refused({ import_namespace: 'acme-widgets' }, `'acme-widgets' is invalid for 'import-namespace'; 'acme-widgets' is not a valid identifier.`);
    await refused({ import_name: 'acme; public' }, `'acme; public' is invalid for 'import-name'; the only valid option is 'private'.`);
  });

  it('reports the first broken field in Warehouse order (sorted by core-metadata name)', async () => {
    await refused(
      { summary: 'a\nb', requires_python: 'x', author_email: 'nobody' },
      `'nobody' is not a valid email address for 'author-email': it must have exactly one @-sign.`,
    );
    await refused({ summary: 'a\nb', requires_python: 'x' }, `'x' is invalid for 'requires-python': use PEP 440 version specifiers such as '>=3.9'.`);
  });
});
