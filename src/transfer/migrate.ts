/**
 * `larder migrate`: moves a single-node larder (its private index, users, tokens, policy records, mirror
 * sets and blobs) into other storage (a shared database and object store), through the storage interfaces only.
 * Blobs first, then the records in one transaction, then the policy records, then a check that compares
 * everything. Every step skips what the target already has, so an interrupted run is simply run again.
 */
import { isDeepStrictEqual } from 'node:util';
import { formatBytes } from '../base/units.js';
import type { BlobStore } from '../store/blob-store.js';
import type { IndexStore } from '../store/index-store.js';
import type { PolicyStore } from '../store/policy-store.js';
import type { Storage } from '../store/storage.js';
import { migrateBlobs, sourceSizes, wantedBlobs, type BlobCounts } from './migrate-blobs.js';
import { checkMigration } from './migrate-check.js';
import { added, emptyRecordCounts, migrateIndex, migratePolicy } from './migrate-records.js';
import type { Progress } from './progress.js';
import type { CachedFileIndex } from '../store/cached-file-index.js';
import type { MirrorSetStore } from '../store/mirror-set-store.js';

export interface MigrationTarget {
  /** The source's own store when that part is not migrated (it stays where it is). */
  index: IndexStore;
  policy: PolicyStore;
  blobs: BlobStore;
  /** Where the records of cached upstream files go when they are shared (PostgreSQL); the source's own otherwise. */
  cachedFiles?: CachedFileIndex;
  /** Where the mirror sets go when they are shared (PostgreSQL). */
  mirrorSets?: MirrorSetStore;
}

export interface MigrateOptions {
  /** A progress bar for a phase ('migrate', 'verify'). */
  progress?: (label: string) => Progress;
  /** Every line of the report (conflicts, refused blobs, the summary). */
  report: (line: string) => void;
  /** Also read every blob back from the target and hash it. */
  verify?: boolean;
}

export interface MigrateResult {
  /** True when nothing was refused, nothing conflicted and the check passed. */
  ok: boolean;
  /** Records and blobs this run added (0 on a re-run). */
  added: number;
}

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

export async function migrate(
  source: Pick<Storage, 'index' | 'policy' | 'blobs' | 'cachedFiles' | 'mirrorSets'>,
  target: MigrationTarget,
  options: MigrateOptions,
): Promise<MigrateResult> {
  const { report } = options;
  const copyBlobs = target.blobs !== source.blobs;
  const moveIndex = target.index !== source.index;
  const movePolicy = target.policy !== source.policy;

  const wanted = await wantedBlobs(source.index, source.cachedFiles);
  const { sizes, missingPrivate } = await sourceSizes(source.blobs, wanted, report);
  let blobs: BlobCounts = { copied: 0, copiedBytes: 0, alreadyThere: 0, alreadyThereBytes: 0, failed: 0 };
  if (copyBlobs) {
    const progress = options.progress?.('migrate');
    try {
      blobs = await migrateBlobs(source.blobs, target.blobs, sizes, report, progress);
    } finally {
      progress?.done('blobs copied');
    }
    report(
      `blobs: copied ${plural(blobs.copied, 'blob')} (${formatBytes(blobs.copiedBytes)}), ` +
        `${blobs.alreadyThere} already in the target (${formatBytes(blobs.alreadyThereBytes)})` +
        (blobs.failed ? `, ${plural(blobs.failed, 'blob')} refused or failed (reported above)` : ''),
    );
  } else report('blobs: not migrated (no --blobs): they stay in the data directory');

  if (blobs.failed || missingPrivate) {
    report(
      `records: not migrated: ${plural(blobs.failed + missingPrivate, 'blob')} could not be copied (reported above); ` +
        'repair the source (a damaged cached upstream file can be dropped with larder cache purge PROJECT) and run migrate again: ' +
        'what was copied stays',
    );
    return { ok: false, added: blobs.copied };
  }

  const records = moveIndex ? await migrateIndex(source.index, target.index, report) : emptyRecordCounts();
  if (movePolicy) await migratePolicy(source.policy, target.policy, records, report);
  if (target.cachedFiles && target.cachedFiles !== source.cachedFiles) {
    const cached = await migrateCachedFiles(source.cachedFiles, target.cachedFiles);
    report(`cached upstream files: recorded ${plural(cached.added, 'file')}; ${cached.alreadyThere} already in the target`);
  }
  if (target.mirrorSets && target.mirrorSets !== source.mirrorSets) {
    const sets = await migrateMirrorSets(source.mirrorSets, target.mirrorSets, report);
    records.conflicts += sets.conflicts;
    report(`mirror sets: added ${plural(sets.added, 'set')}; ${sets.alreadyThere} already in the target`);
  }
  if (moveIndex) {
    report(
      `records: added ${plural(records.projects, 'project')}, ${plural(records.releases, 'release')}, ${plural(records.files, 'file')}, ` +
        `${plural(records.reservedNames, 'removed-name reservation')}, ${plural(records.allowedNames, 'allowed name')}, ` +
        `${plural(records.users, 'user')}, ${plural(records.tokens, 'token')}, ${plural(records.exemptions, 'exemption')}, ` +
        `${plural(records.collisions, 'name collision')}; ${records.alreadyThere} already in the target` +
        (records.conflicts ? `; ${plural(records.conflicts, 'conflict')} (reported above)` : ''),
    );
    report('serials: the target numbers its own changes (its changelog starts with this migration); each project keeps a serial at least as high as before');
  } else report('records: not migrated (no --to): they stay in the data directory');
  report('upstream page caches are per node and not migrated: each node builds its own (cached files are found in the blob store)');

  const progress = options.verify ? options.progress?.('verify') : undefined;
  const cachedOnly = new Set(wanted.filter((w) => !w.private).map((w) => w.sha256));
  let check: Awaited<ReturnType<typeof checkMigration>>;
  try {
    check = await checkMigration({
      source,
      target: { index: moveIndex ? target.index : null, policy: movePolicy ? target.policy : null, blobs: target.blobs },
      blobs: sizes,
      cachedOnly,
      verify: options.verify === true,
      progress,
    });
  } finally {
    progress?.done('verified');
  }
  for (const problem of check.problems) report(`check: ${problem}`);
  const c = check.checked;
  const total = blobs.copied + added(records);
  report(
    `check ${check.problems.length ? 'FAILED' : 'passed'}: ` +
      (moveIndex
        ? `${plural(c.projects, 'project')}, ${plural(c.releases, 'release')}, ${plural(c.files, 'file')}, ${plural(c.reservedNames, 'removed name')}, ` +
          `${plural(c.users, 'user')}, ${plural(c.tokens, 'token')}, `
        : '') +
      (movePolicy ? `${plural(c.exemptions, 'exemption')}, ` : '') +
      `${plural(c.blobs, 'blob')} (${formatBytes(c.bytes)}) in the target${options.verify ? ', every blob read back and its sha256 verified' : ' with the right sizes'}`,
  );
  if (total === 0 && !check.problems.length && !records.conflicts) report('nothing to add: the target already had everything');
  return { ok: check.problems.length === 0 && records.conflicts === 0, added: total };
}

/** Records of cached upstream files the target lacks (their blobs were copied with the others). */
async function migrateCachedFiles(from: CachedFileIndex, to: CachedFileIndex): Promise<{ added: number; alreadyThere: number }> {
  let added = 0;
  let alreadyThere = 0;
  for await (const { id, record } of from.entries()) {
    if ((await to.get(id))?.sha256 === record.sha256) alreadyThere++;
    else {
      await to.put(id, record);
      added++;
    }
  }
  return { added, alreadyThere };
}

/** Mirror sets the target lacks; a set of the same name with other contents stays as the target has it. */
async function migrateMirrorSets(
  from: MirrorSetStore,
  to: MirrorSetStore,
  report: (line: string) => void,
): Promise<{ added: number; alreadyThere: number; conflicts: number }> {
  const counts = { added: 0, alreadyThere: 0, conflicts: 0 };
  for (const set of await from.list()) {
    const there = await to.get(set.name);
    if (!there) {
      await to.put(set);
      counts.added++;
    } else if (isDeepStrictEqual(there, set)) counts.alreadyThere++;
    else {
      counts.conflicts++;
      report(`conflict: mirror set ${set.name} exists in the target with other contents; kept the target's`);
    }
  }
  return counts;
}
