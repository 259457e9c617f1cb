/**
 * Locked packages and targets (docs/mirror.md): a lock without markers (poetry 1.x, pdm 2.2)
 * lists a Windows-only package for every platform; a package whose wheels are all for other operating
 * systems is left out of a Linux target as skipped, not a problem, while a package that has no file for the
 * target although its wheels are for the target's own system stays a problem.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileEntry, ProjectPage } from '../../src/model/documents.js';
import { normalizeName, type ProjectName } from '../../src/model/names.js';
import { computeClosure, type MirrorIndex } from '../../src/mirror/closure.js';
import type { MirrorInputs } from '../../src/mirror/requirement.js';

const file = (filename: string, version: string): FileEntry => ({
  filename,
  version,
  sourceUrl: `https://files.example/${filename}`,
  hashes: { sha256: 'a'.repeat(64) },
  requiresPython: null,
  yanked: false,
  yankedReason: null,
  coreMetadata: false,
  size: 100,
  uploadTime: null,
  hasSig: false,
});

const pages: Record<string, FileEntry[]> = {
  pywin32: [file('pywin32-306-cp312-cp312-win_amd64.whl', '306'), file('pywin32-306-cp312-cp312-win32.whl', '306')],
  linuxonly: [file('linuxonly-1.0-cp312-cp312-manylinux_2_28_x86_64.whl', '1.0')],
  plain: [file('plain-1.0-py3-none-any.whl', '1.0')],
};

const index: MirrorIndex = {
  async page(name: ProjectName): Promise<ProjectPage | null> {
    const files = pages[name];
    return files ? { name, displayName: name, serial: 1, files, versions: [...new Set(files.map((f) => f.version!))], origin: 'upstream' } : null;
  },
  async requiresDist() {
    return [];
  },
};

const locked = (name: string, version: string) => ({ name: normalizeName(name), version, files: null, origin: 'poetry.lock' });

test('a locked package with wheels only for other operating systems is skipped for the target, not a problem', async () => {
  const inputs: MirrorInputs = { requirements: [], constraints: [], locked: [locked('pywin32', '306'), locked('plain', '1.0')], skipped: [] };
  const linux = await computeClosure(index, inputs, { targets: [{ python: '3.12', platform: 'manylinux_2_17_x86_64' }], sdists: false, versions: 'newest' });
  assert.deepEqual(linux.problems, []);
  assert.equal(linux.skipped.length, 1);
  assert.match(linux.skipped[0]!, /3\.12\/manylinux_2_17_x86_64: pywin32 306 .*only for other operating systems/);
  assert.deepEqual([...linux.files.keys()], ['plain/plain-1.0-py3-none-any.whl']);

  const windows = await computeClosure(index, inputs, { targets: [{ python: '3.12', platform: 'win_amd64' }], sdists: false, versions: 'newest' });
  assert.deepEqual(windows.skipped, []);
  assert.ok(windows.files.has('pywin32/pywin32-306-cp312-cp312-win_amd64.whl'));
});

test('a locked package with no file for the target but wheels for its own system stays a problem', async () => {
  const inputs: MirrorInputs = { requirements: [], constraints: [], locked: [locked('linuxonly', '1.0')], skipped: [] };
  const arm = await computeClosure(index, inputs, { targets: [{ python: '3.12', platform: 'manylinux_2_17_aarch64' }], sdists: false, versions: 'newest' });
  assert.equal(arm.problems.length, 1);
  assert.match(arm.problems[0]!.reason, /no file compatible with this target/);
  assert.deepEqual(arm.skipped, []);
});
