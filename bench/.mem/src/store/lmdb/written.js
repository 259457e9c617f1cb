/** Asynchronous lmdb-js writes, awaited so that a failed commit is handled and never crashes the process. */
/**
 * Awaits an lmdb-js write. When the commit fails, lmdb-js rejects the write's promise and also a promise of
 * its own, reachable only as the error's `commitError`; both are handled here, and the error is rethrown.
 */
export async function written(write) {
    try {
        return await write;
    }
    catch (err) {
        void err?.commitError?.catch(() => { });
        throw err;
    }
}
