/** The policy's requirement lists and settings: PEP 508 requirements with globs, specifier sets split by commas, and the config parsers. */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/schema.js';
import { coversProject, matchesRelease, parseRequirementList } from '../../src/model/requirements.js';

describe('policy requirements', () => {
  test('names, globs and specifier sets; a comma inside a specifier set continues it', () => {
    const reqs = parseRequirementList('evilpkg, requests<2.0, urllib3>=1,<1.26.5, torch*, Foo.Bar (==1.0)');
    assert.deepEqual(
      reqs.map((r) => [r.text, r.specifier]),
      [
        ['evilpkg', null],
        ['requests<2.0', '<2.0'],
        ['urllib3>=1,<1.26.5', '>=1,<1.26.5'],
        ['torch*', null],
        ['Foo.Bar (==1.0)', '==1.0'],
      ],
    );
    const [evil, requests, urllib3, torch, foo] = reqs as [never, never, never, never, never];
    assert.ok(coversProject(evil, 'evilpkg') && !coversProject(requests, 'requests'));
    assert.ok(matchesRelease(requests, 'requests', '1.9') && !matchesRelease(requests, 'requests', '2.0'));
    assert.ok(matchesRelease(requests, 'requests', '2.0rc1') === false && matchesRelease(requests, 'requests', '1.0rc1'));
    assert.ok(matchesRelease(urllib3, 'urllib3', '1.26.4') && !matchesRelease(urllib3, 'urllib3', '1.26.5'));
    assert.ok(matchesRelease(torch, 'torchvision', null) && !matchesRelease(torch, 'pytorch-lightning', '1.0'));
    assert.ok(matchesRelease(foo, 'foo-bar', '1.0') && !matchesRelease(foo, 'foo-bar', 'not-a-version'));
  });

  test('anything else is refused with the offending entry named', () => {
    assert.throws(() => parseRequirementList('requests[socks]'), /'requests\[socks\]' is not a requirement/);
    assert.throws(() => parseRequirementList('requests<<2'), /'requests<<2'/);
    assert.throws(() => parseRequirementList('requests; python_version<"3"'), /is not a requirement/);
  });
});

describe('policy settings', () => {
  test('environment variables: cooldown, unknown upload times, deny and allow lists', () => {
    const c = loadConfig({
      env: { LARDER_MIN_RELEASE_AGE: '3d', LARDER_MIN_RELEASE_AGE_UNKNOWN: 'deny', LARDER_DENY: 'evilpkg,requests<2.0', LARDER_ALLOW: 'torch*' },
    });
    assert.equal(c.minReleaseAge, 3 * 86_400_000);
    assert.equal(c.minReleaseAgeUnknown, 'deny');
    assert.deepEqual(c.deny, ['evilpkg', 'requests<2.0']);
    assert.deepEqual(c.allow, ['torch*']);
    const defaults = loadConfig({ env: {} });
    assert.equal(defaults.minReleaseAge, null);
    assert.deepEqual([defaults.deny, defaults.allow], [[], []]);
    assert.throws(() => loadConfig({ env: { LARDER_DENY: 'requests[socks]' } }), ConfigError);
    assert.throws(() => loadConfig({ env: { LARDER_MIN_RELEASE_AGE_UNKNOWN: 'maybe' } }), /LARDER_MIN_RELEASE_AGE_UNKNOWN="maybe"; expected allow or deny/);
  });

  test('a TOML or JSON config file gives upstreams and lists; mistakes name the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'larder-policy-config-'));
    try {
      const toml = join(dir, 'larder.toml');
      await writeFile(
        toml,
        'minReleaseAge = "3d"\ndeny = ["evilpkg", "requests<2.0"]\n\n[[upstreams]]\nname = "pytorch"\nurl = "https://download.pytorch.org/whl/cpu"\nprojects = ["torch*"]\n\n[[upstreams]]\nname = "pypi"\nurl = "https://pypi.org/simple/"\nusername = "u"\npassword = "p"\n',
      );
      const c = loadConfig({ env: { LARDER_CONFIG: toml } });
      assert.equal(c.minReleaseAge, 3 * 86_400_000);
      assert.deepEqual(c.deny, ['evilpkg', 'requests<2.0']);
      assert.deepEqual(
        c.upstreams.map(({ name, url, projects, username, password }) => ({ name, url, projects, username, password })),
        [
          { name: 'pytorch', url: 'https://download.pytorch.org/whl/cpu/', projects: ['torch*'], username: null, password: null },
          { name: 'pypi', url: 'https://pypi.org/simple/', projects: null, username: 'u', password: 'p' },
        ],
      );
      const json = join(dir, 'larder.json');
      await writeFile(
        json,
        JSON.stringify({
          upstreams: [
            { name: 'a', url: 'http://a.example/simple/' },
            { name: 'a', url: 'http://b.example/simple/' },
          ],
        }),
      );
      assert.throws(() => loadConfig({ env: { LARDER_CONFIG: json } }), /invalid configuration: upstreams=.*distinct names/);
      await writeFile(toml, 'deny = [\n');
      assert.throws(() => loadConfig({ env: { LARDER_CONFIG: toml } }), /is not valid TOML/);
      await writeFile(toml, '[[upstreams]]\nname = "x"\nurl = "ftp://x"\n');
      assert.throws(() => loadConfig({ env: { LARDER_CONFIG: toml } }), /url of x: an http/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
