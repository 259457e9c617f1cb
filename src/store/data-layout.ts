/**
 * The layout of the data directory (`--data`): the one place that names what lives under it. Everything
 * else asks `dataLayout(data)` for a path. Changing a name here moves existing data: keep the names stable.
 */
import { join } from 'node:path';

export interface DataLayout {
  /** The data directory itself. */
  readonly root: string;
  /** The LMDB environment of the private index and the upstream cache records (`meta/`). */
  readonly indexDb: string;
  /** The filesystem blob store: file bytes named by their sha256 (`blobs/sha256/ab/cd/<sha256>`). */
  readonly blobs: string;
  /** Writes in flight (blobs, uploads, imports) before they are committed (`tmp/`). */
  readonly tmp: string;
  /** Rendered project lists and the first upstream's cached project list (`cache/`). */
  readonly cache: string;
  /** The random key web sessions are signed with when no session secret is set. */
  readonly sessionKey: string;
  /** An upstream's stored project list: the default cache namespace's (null, the first upstream's) in `cache/`, the others' in `cache/upstreams/<namespace>/`. */
  upstreamRootList(namespace: string | null): string;
}

export function dataLayout(dataDir: string): DataLayout {
  const cache = join(dataDir, 'cache');
  return {
    root: dataDir,
    indexDb: join(dataDir, 'meta'),
    blobs: join(dataDir, 'blobs', 'sha256'),
    tmp: join(dataDir, 'tmp'),
    cache,
    sessionKey: join(dataDir, 'web-session.key'),
    upstreamRootList: (namespace) => join(namespace === null ? cache : join(cache, 'upstreams', namespace), 'upstream-root.txt'),
  };
}
