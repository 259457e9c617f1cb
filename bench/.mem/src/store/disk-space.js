/**
 * Free space on the data filesystem, and the errors that say it ran out. Cache writes ask first and keep
 * LARDER_DISK_RESERVE free, so that the cache never drives LMDB into a failed commit (lmdb-js has been
 * seen to abort the process natively after one). statfs is asked at most once a second; bytes written
 * since are subtracted, so a burst of writes within that second is still counted.
 */
import { statfs } from 'node:fs/promises';
const REFRESH_MS = 1000;
/** Node's ENOSPC/EDQUOT, and LMDB's errno values for them (28, 122 on Linux) and MDB_MAP_FULL. */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 28, 122, -30792]);
/** ENOSPC and EDQUOT from the filesystem, MDB_MAP_FULL (and the failed commit it causes) from LMDB. */
export function isDiskFull(err) {
    for (let e = err, depth = 0; e && depth < 4; e = e.cause, depth++) {
        if (FULL_CODES.has(e.code))
            return true;
        if (typeof e.message === 'string' && /MDB_MAP_FULL|No space left on device|Disk quota exceeded/.test(e.message))
            return true;
    }
    return false;
}
/** The error a write gets when larder itself refuses it for lack of space (classed as a full disk). */
export function diskFullError(detail) {
    return Object.assign(new Error(detail), { code: 'ENOSPC' });
}
export class DiskSpace {
    dir;
    reserve;
    clock;
    known = null;
    asking = null;
    constructor(dir, 
    /** Bytes cache writes leave free. */
    reserve, clock) {
        this.dir = dir;
        this.reserve = reserve;
        this.clock = clock;
    }
    /** Bytes free for an unprivileged writer now (statfs at most once a second, less what was written since). */
    async free() {
        const now = this.clock.now();
        if (this.known && now - this.known.at < REFRESH_MS)
            return this.known.free;
        this.asking ??= statfs(this.dir)
            .then((s) => {
            const free = Number(s.bavail) * Number(s.bsize);
            this.known = { free, at: this.clock.now() };
            return free;
        })
            // A filesystem that cannot say is taken to have room; the writes themselves still report ENOSPC.
            .catch(() => Number.MAX_SAFE_INTEGER)
            .finally(() => (this.asking = null));
        return this.asking;
    }
    /** Is there room for `bytes` and still `floor` free (by default the reserve cache writes keep)? */
    async allows(bytes, floor = this.reserve) {
        return (await this.free()) - bytes >= floor;
    }
    /** For a cache write of `bytes` about to be made: true (and counted as written) when the reserve stays free. */
    async claim(bytes) {
        if (!(await this.allows(bytes)))
            return false;
        this.wrote(bytes);
        return true;
    }
    /** `bytes` were just written (or freed, when negative): counted until statfs is asked again. */
    wrote(bytes) {
        if (this.known)
            this.known.free -= bytes;
    }
    /** Forget the last answer (after a failed write, or when space may have been freed). */
    forget() {
        this.known = null;
    }
}
