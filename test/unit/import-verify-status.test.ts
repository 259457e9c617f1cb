/** `larder import` checks a project record's PEP 792 status before anything is written. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { encodeRecord, type ExportHeader } from '../../src/transfer/archive-format.js';
import { verifyRecords, type Staged } from '../../src/transfer/import-verify.js';
import { suiteTempDir } from '../helpers/temp-dir.js';

const dir = suiteTempDir('larder-import-status-');

function stagedProject(extra: Record<string, unknown>): Staged {
  const path = join(dir, `projects-${Math.random().toString(36).slice(2)}.jsonl`);
  const record = { name: 'demo', displayName: 'demo', createdAt: '2024-01-01T00:00:00.000Z', serial: 3, owners: ['alice'], maintainers: [], ...extra };
  writeFileSync(path, `${encodeRecord('demo', record)}\n`);
  const header = { counts: { blobs: 0, records: { projects: 1 } } } as unknown as ExportHeader;
  return { header, found: [], manifestText: '', records: new Map([['projects', path]]), blobs: new Map() };
}

test('a project status of archived, quarantined or deprecated, with a short reason, is accepted', () => {
  for (const status of ['archived', 'quarantined', 'deprecated']) verifyRecords(stagedProject({ status, statusReason: 'why' }));
  verifyRecords(stagedProject({}));
});

test('another status, or a reason that is not a short string, refuses the import naming the line', () => {
  assert.throws(() => verifyRecords(stagedProject({ status: 'frozen' })), /records\/projects\.jsonl line 1: not a project record \(its status\)/);
  assert.throws(() => verifyRecords(stagedProject({ status: 'archived', statusReason: 42 })), /line 1: not a project record \(its status reason\)/);
  assert.throws(() => verifyRecords(stagedProject({ status: 'archived', statusReason: 'x'.repeat(501) })), /its status reason/);
  assert.throws(() => verifyRecords(stagedProject({ status: 'archived', statusReason: 'two\nlines' })), /its status reason/);
});
