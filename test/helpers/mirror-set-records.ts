/** Mirror set records for tests of what stores them and what they pin. */
import type { MirrorSetFile, MirrorSetRecord } from '../../src/store/mirror-set-store.js';

/** A complete set `name` for CPython 3.11 on manylinux x86_64 that needs `files` (each a file, not a `.metadata`). */
export function mirrorSetRecord(name: string, files: { project: string; filename: string; size?: number }[]): MirrorSetRecord {
  return {
    name,
    requirements: [],
    locks: [],
    pythons: ['3.11'],
    platforms: ['manylinux_2_17_x86_64'],
    sdists: false,
    versions: 'newest',
    createdAt: '2026-11-25T12:00:00.000Z',
    lastSync: null,
    complete: true,
    files: files.map((f): MirrorSetFile => ({ project: f.project, filename: f.filename, variant: 'file', size: f.size ?? 10, targets: [] })),
    problems: [],
  };
}
