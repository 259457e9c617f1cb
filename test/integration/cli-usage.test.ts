/**
 * The command line's front door: `--version`, help that lists a command's own options with their
 * defaults (every setting only under `serve --help`), "did you mean" for mistyped options and commands,
 * every boolean as `--flag`, `--flag=false`, `--flag false` and `--no-flag`, and config file errors that
 * name the file and its format.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseCommand } from '../../src/cli/args.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { SETTINGS } from '../../src/config/schema.js';
import { parseBoolean } from '../../src/config/values.js';
import { runLarderCli as larder, type CliResult } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

function assertUsageError(r: CliResult, message: string): void {
  assert.equal(r.code, 2, `exit ${r.code}: ${r.stderr}`);
  assert.deepEqual(lines(r.stderr), [`larder: ${message}`]);
  assert.equal(r.stdout, '');
}

describe('larder command line: version, help, flags', () => {
  const tmp = suiteTempDir('larder-cli-usage-');
  const data = join(tmp, 'data');

  test('--version and -V print the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await larder([flag]);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, `larder ${version}\n`);
    }
    assert.match((await larder(['--help'])).stdout, /larder --version/);
  });

  test("a command's help lists its own options and the data settings with defaults; every setting only under serve --help", async () => {
    const userList = await larder(['user', 'list', '--help']);
    assert.equal(userList.code, 0);
    assert.ok(lines(userList.stdout).length <= 15, `short:\n${userList.stdout}`);
    assert.match(userList.stdout, /^ {2}--data DIR +data directory.*\(default \.\/data; env LARDER_DATA\)$/m);
    assert.match(userList.stdout, /--database-url URL/);
    assert.match(userList.stdout, /every setting of larder serve --help is taken here too/);
    assert.doesNotMatch(userList.stdout, /--upstream-connect-timeout|--page-ttl|--host/);

    const results = await Promise.all(Object.keys(COMMANDS).map((name) => larder([...name.split(' '), '--help'])));
    Object.entries(COMMANDS).forEach(([name, command], i) => {
      const help = results[i]!.stdout;
      assert.equal(results[i]!.code, 0, name);
      for (const [option, spec] of Object.entries(command.options ?? {})) {
        const row = help.split('\n').find((l) => new RegExp(`^ {2}(-\\w, )?--${option}\\b`).test(l));
        assert.ok(row, `${name} --help lists --${option}:\n${help}`);
        const described = help.slice(help.indexOf(row)).split('\n').slice(0, 2).join(' ');
        assert.ok(described.includes(spec.help), `${name} --${option} has its description`);
        if (spec.default !== undefined) assert.ok(described.includes(`(default ${spec.default})`), `${name} --${option} shows its default`);
      }
      assert.doesNotMatch(help, /--upstream-connect-timeout/, `${name} --help leaves the server settings to serve --help`);
    });
    assert.match((await larder(['gc', '--help'])).stdout, /--min-age DURATION +.*\(default 1h\)/);
    assert.match((await larder(['mirror', 'add', '--help'])).stdout, /--jobs N +downloads at a time \(default 4\)/);

    const serve = (await larder(['serve', '--help'])).stdout;
    for (const s of SETTINGS) {
      const row = serve
        .slice(serve.search(new RegExp(`^ {2}${s.flag}\\b`, 'm')))
        .split('\n')
        .slice(0, 2)
        .join(' ');
      assert.ok(row.startsWith(`  ${s.flag}`), `serve --help lists ${s.flag}`);
      if (s.default !== '' && s.default !== false) assert.ok(row.includes(`default ${String(s.default)}`), `${s.flag} shows its default: ${row}`);
    }
  });

  test('a mistyped option or command gets "did you mean"; one that is not close gets the help to read', async () => {
    assertUsageError(await larder(['serve', '--prot', '8080']), "unknown option '--prot'; did you mean '--port'?");
    assertUsageError(await larder(['user', 'list', '--dta', data]), "unknown option '--dta'; did you mean '--data'?");
    assertUsageError(await larder(['token', 'create', 'alice', '--projcet', 'x']), "unknown option '--projcet'; did you mean '--project'?");
    assertUsageError(await larder(['user', 'list', '--frobnicate']), "unknown option '--frobnicate'; larder user list --help lists the options");
    assertUsageError(await larder(['sevre']), "unknown command 'sevre'; did you mean 'larder serve'?");
    assertUsageError(await larder(['--versoin']), "unknown option '--versoin'; did you mean '--version'?");
    assertUsageError(await larder(['user', 'lsit']), "unknown command 'user lsit'; did you mean 'larder user list'?");
    assertUsageError(await larder(['usr', 'list']), "unknown command 'usr list'; did you mean 'larder user list'?");
    assertUsageError(await larder(['user', 'frobnicate']), "unknown command 'user frobnicate'; run larder user --help");
    assertUsageError(await larder(['user', 'list', '--data']), 'option --data needs a value: --data DIR');
    assertUsageError(await larder(['serve', '--offline=maybe']), "option '--offline' is true or false, not 'maybe'");
  });

  test('every boolean setting takes --flag, --flag=false, --flag=true, --flag false and --no-flag, over the environment', () => {
    const booleans = SETTINGS.filter((s) => s.parse === parseBoolean);
    assert.deepEqual(booleans.map((s) => s.key).sort(), ['audit', 'blockMalware', 'offline', 'readAuth', 's3Redirect']);
    for (const s of booleans) {
      const value = (argv: string[], env: string) => {
        const parsed = parseCommand('serve', argv, {}, { LARDER_UPSTREAM: 'none', [s.env as string]: env });
        assert.deepEqual(parsed.positionals, [], argv.join(' '));
        return (parsed.config() as Record<string, unknown>)[s.key];
      };
      assert.equal(value([s.flag], 'false'), true, s.flag);
      assert.equal(value([`${s.flag}=false`], 'true'), false, `${s.flag}=false`);
      assert.equal(value([`${s.flag}=true`], 'false'), true, `${s.flag}=true`);
      assert.equal(value([s.flag, 'false'], 'true'), false, `${s.flag} false`);
      assert.equal(value([`--no-${s.flag.slice(2)}`], 'true'), false, `--no-${s.flag.slice(2)}`);
    }
  });

  test("a command's own booleans take =false too", async () => {
    const add = await larder(['user', 'add', 'bob', '--password-stdin=true', '--admin=false', '--data', data], { input: 'bob-password-1\n' });
    assert.equal(add.code, 0, add.stderr);
    const root = await larder(['user', 'add', 'root', '--password-stdin', '--admin', 'true', '--data', data], { input: 'root-password-1\n' });
    assert.equal(root.code, 0, root.stderr);
    const list = (await larder(['user', 'list', '--data', data, '--offline=false'])).stdout;
    assert.match(list, /^bob\s+no\b/m);
    assert.match(list, /^root\s+yes\b/m);
  });

  test('config file errors name the file and the format its name asks for', async () => {
    const cases: [string, string, RegExp][] = [
      ['missing.toml', '', /^larder: config file \S+missing\.toml not found \(LARDER_CONFIG\)$/],
      ['missing.json', '', /^larder: config file \S+missing\.json not found \(LARDER_CONFIG\)$/],
      ['bad.toml', 'port = = 1\n', /^larder: config file \S+bad\.toml \(LARDER_CONFIG\) is not valid TOML: /],
      ['bad.json', '{"port": }', /^larder: config file \S+bad\.json \(LARDER_CONFIG\) is not valid JSON: /],
      ['bad.conf', 'port = 1', /^larder: config file \S+bad\.conf \(LARDER_CONFIG\) is not valid JSON \(a name not ending in \.toml is read as JSON\): /],
      ['list.json', '[1]', /^larder: config file \S+list\.json \(LARDER_CONFIG\) must hold one JSON object of settings$/],
    ];
    for (const [name, text] of cases) if (text) await writeFile(join(tmp, name), text);
    const results = await Promise.all(cases.map(([name]) => larder(['user', 'list', '--data', data], { env: { LARDER_CONFIG: join(tmp, name) } })));
    results.forEach((r, i) => {
      assert.equal(r.code, 1, cases[i]![0]);
      assert.equal(lines(r.stderr).length, 1, r.stderr);
      assert.match(r.stderr.trim(), cases[i]![2]);
    });
  });
});
