/**
 * The compose files under config/, the Dockerfile and package.json's `bin` work as shipped: every path of
 * the repository they name exists (build contexts, Dockerfiles, bind-mounted folders, files a service's
 * command reads from a mount, what the image copies from the build context, the programs it runs).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { composePathProblems, dockerfilePathProblems, withVariablesUnset } from '../helpers/shipped-paths.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const composeFiles = readdirSync(join(REPO, 'config')).filter((name) => /\.ya?ml$/.test(name));

describe('example files work as shipped', () => {
  test('config/ holds every compose file the README shows', () => {
    const shown = new Set([...readFileSync(join(REPO, 'README.md'), 'utf8').matchAll(/config\/([\w.-]+\.ya?ml)/g)].map((m) => m[1]!));
    assert.ok(shown.size >= 2, `the README shows ${[...shown].join(', ')}`);
    for (const name of shown) assert.ok(composeFiles.includes(name), `config/${name}`);
  });

  for (const name of composeFiles) {
    test(`config/${name}: every repository path it names exists`, () => {
      assert.deepEqual(composePathProblems(join(REPO, 'config', name)), []);
    });
  }

  test('the Dockerfile (docker build -t larder .): what it copies exists and is not ignored; what it runs is built from a source', () => {
    assert.deepEqual(dockerfilePathProblems(REPO, join(REPO, 'Dockerfile')), []);
  });

  test("package.json's bin is a file of the repository, or built from a source that exists", () => {
    const bin = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin;
    for (const [command, path] of Object.entries(bin)) {
      const built = /^dist\/(.+)\.js$/.exec(path);
      const source = built ? `${built[1]}.ts` : path;
      assert.ok(existsSync(join(REPO, source)), `${command}: ${source} exists`);
    }
  });
});

describe('the path checks', () => {
  test('variables read as unset: defaults apply, $$ is a dollar', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own ${VAR} syntax
    assert.equal(withVariablesUnset('${PROJECT_DIR:-./example}:/src ${A-b} ${C} $D $$host'), './example:/src b   $host');
  });

  test('a missing requirements file, bind source, build context, env file, COPY source and ignored COPY are reported', () => {
    const root = mkdtempSync(join(tmpdir(), 'larder-shipped-'));
    try {
      mkdirSync(join(root, 'config'));
      mkdirSync(join(root, 'app'));
      mkdirSync(join(root, 'dist'));
      writeFileSync(
        join(root, 'Dockerfile'),
        'FROM node:24-slim AS build\nCOPY package.json \\\n  missing.json ./\nCOPY dist ./dist\nCOPY --from=build /app/x ./x\nCMD ["node", "dist/src/main.js"]\n',
      );
      writeFileSync(join(root, '.dockerignore'), 'dist\n');
      writeFileSync(join(root, 'package.json'), '{}');
      // As config/compose.ci-sidecar.yml was: the repository mounted as the job's project, with no requirements.txt in it.
      writeFileSync(
        join(root, 'config', 'compose.yml'),
        [
          'services:',
          '  larder:',
          '    build: { context: .., dockerfile: Dockerfile }',
          '    volumes: [larder-data:/data, undeclared:/x]',
          '  job:',
          '    build: ../nowhere',
          '    working_dir: /src',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own ${VAR} syntax
          '    volumes: ["..:/src:ro", "${DIR:-./absent}:/more"]',
          '    env_file: ci.env',
          '    command: ["sh", "-c", "python -m venv /tmp/venv && /tmp/venv/bin/pip install -r requirements.txt -c /more/c.txt && ls app"]',
          'volumes:',
          '  larder-data:',
        ].join('\n'),
      );
      const at = (p: string) => join(root, p);
      assert.deepEqual(composePathProblems(at('config/compose.yml')).sort(), [
        `job: bind source: ${at('config/absent')} (missing)`,
        `job: build context: ${at('nowhere')} (missing)`,
        `job: dockerfile: ${at('nowhere/Dockerfile')} (missing)`,
        `job: env_file: ${at('config/ci.env')} (missing)`,
        `job: file named by its command: ${at('config/absent/c.txt')} (missing)`,
        `job: file named by its command: ${at('requirements.txt')} (missing)`,
        'larder: CMD dist/src/main.js (no src/main.ts to build it from)',
        'larder: COPY dist (excluded by .dockerignore)',
        'larder: COPY missing.json (missing from the build context)',
        'larder: volume: undeclared (not declared under volumes:)',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
