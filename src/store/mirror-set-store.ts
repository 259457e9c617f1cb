/**
 * Records of mirror sets (`larder mirror add`): what a set was made from (inputs, targets, options), the
 * files it needs, and how its last sync ended. Cache eviction spares every file a set needs.
 */

export interface MirrorSetFile {
  project: string;
  filename: string;
  /** 'file' or 'metadata' (the `.metadata` of a file). */
  variant: 'file' | 'metadata';
  /** As the index lists it; null for `.metadata` files, whose size is known only once fetched. */
  size: number | null;
  /** Labels of the targets that need it (`3.11/manylinux_2_17_x86_64`). */
  targets: string[];
}

export interface MirrorSetRecord {
  name: string;
  /** Absolute paths of the requirements files and lock files, re-read by every sync. */
  requirements: string[];
  locks: string[];
  pythons: string[];
  platforms: string[];
  sdists: boolean;
  versions: 'newest' | 'all';
  /** ISO 8601. */
  createdAt: string;
  /** When the last sync ended, and whether everything was fetched then. */
  lastSync: string | null;
  complete: boolean;
  files: MirrorSetFile[];
  /** What the last sync could not satisfy, one line each. */
  problems: string[];
}

export interface MirrorSetStore {
  get(name: string): Promise<MirrorSetRecord | undefined>;
  list(): Promise<MirrorSetRecord[]>;
  put(record: MirrorSetRecord): Promise<void>;
  /** False when there was no such set. */
  remove(name: string): Promise<boolean>;
}

/** The key cache eviction and the export compare cached files by. */
export const mirrorFileKey = (project: string, filename: string, variant: string): string => `${project}\u0000${filename}\u0000${variant}`;

/** Keys of every cached file some mirror set needs. */
export async function pinnedFiles(store: Pick<MirrorSetStore, 'list'>): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const set of await store.list()) for (const f of set.files) keys.add(mirrorFileKey(f.project, f.filename, f.variant));
  return keys;
}
