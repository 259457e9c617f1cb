/**
 * Fills a PostgreSQL database through larder's own storage API (so the rows are what larder writes):
 * private projects with one release and a few files each, and cached-file records of upstream projects.
 * Records only: no blob is written, since what is measured is a node's memory, not its files.
 */
import { openPostgres } from '../../src/store/postgres/open-postgres.js';
import type { FileRecord } from '../../src/store/records.js';

export interface PgFill {
  privateFiles: number;
  cachedFiles: number;
}

const FILES_PER_PROJECT = 5;
const CACHED_PER_PROJECT = 20;
const PUT_CONCURRENCY = 16;

const hex = (n: number, salt: string) => `${salt}${n.toString(16)}`.padStart(64, '0').slice(-64);

function privateFile(project: string, version: string, i: number, at: string): FileRecord {
  return {
    project,
    version,
    filename: `${project.replace(/-/g, '_')}-${version}-py3-none-any_${i}.whl`,
    packagetype: 'bdist_wheel',
    pyversion: 'py3',
    size: 10_000 + i,
    sha256: hex(i, 'a'),
    md5: hex(i, 'b').slice(0, 32),
    blake2b_256: hex(i, 'c'),
    uploadTime: at,
    requiresPython: '>=3.9',
    comment: null,
    metadataSha256: null,
    signatureSha256: null,
    uploader: 'bench',
  };
}

/** Writes `fill` into the database at `url`; resolves with the milliseconds it took. */
export async function fillPostgres(url: string, fill: PgFill): Promise<number> {
  const t0 = performance.now();
  const backends = await openPostgres(url, { connections: PUT_CONCURRENCY + 2 });
  try {
    const at = new Date().toISOString();
    const projects = Math.ceil(fill.privateFiles / FILES_PER_PROJECT);
    await backends.index.importRecords(async (target) => {
      for (let p = 0; p < projects; p++) {
        const name = `internal-${p}`;
        target.addProject({ name, displayName: name, createdAt: at, serial: 0, owners: ['bench'], maintainers: [] });
        target.addRelease({ project: name, version: '1.0', metadata: { summary: `internal project ${p}` }, createdAt: at, yanked: false, yankedReason: null });
        for (let f = 0; f < FILES_PER_PROJECT && p * FILES_PER_PROJECT + f < fill.privateFiles; f++) {
          target.addFile(privateFile(name, '1.0', p * FILES_PER_PROJECT + f, at));
        }
      }
    });
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < fill.cachedFiles; i = next++) {
        const project = `upstream-${Math.floor(i / CACHED_PER_PROJECT)}`;
        const id = { project, filename: `${project.replace(/-/g, '_')}-1.${i % CACHED_PER_PROJECT}-py3-none-any.whl`, variant: 'file' };
        const now = Date.now();
        await backends.cachedFiles.put(id, { sha256: hex(i, 'd'), size: 2000 + i, fetchedAt: now, lastAccess: now });
      }
    };
    await Promise.all(Array.from({ length: PUT_CONCURRENCY }, worker));
  } finally {
    await backends.close();
  }
  return performance.now() - t0;
}
