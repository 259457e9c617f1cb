export const isCached = (storage, f) => {
    const record = storage.cachedFiles.get({ project: f.project, filename: f.filename, variant: f.variant });
    return record !== undefined && storage.blobs.hasSync(record.sha256);
};
export async function fetchMissing(files, cache, storage, options) {
    const result = { fetched: 0, present: 0, bytes: 0, failures: [] };
    const missing = files.filter((f) => !isCached(storage, f));
    result.present = files.length - missing.length;
    options.progress?.setTotals({ files: missing.length, bytes: missing.reduce((n, f) => n + (f.size ?? 0), 0) });
    let next = 0;
    const worker = async () => {
        while (next < missing.length) {
            const file = missing[next++];
            try {
                const body = await cache.openFile(file.project, file.filename, file.variant);
                if (!body)
                    throw new Error('the index no longer lists it');
                if (body.kind === 'stream') {
                    const { stream } = await body.open();
                    for await (const chunk of stream) {
                        result.bytes += chunk.length;
                        options.progress?.add(0, chunk.length);
                    }
                    result.fetched += 1;
                }
                options.progress?.add(1, 0);
            }
            catch (err) {
                result.failures.push({ file, reason: `upstream error: ${err.message}` });
            }
        }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
    await cache.files.drain();
    // A download that ended but could not be kept (a full disk, a failed write) is missing still.
    for (const file of missing) {
        if (!isCached(storage, file) && !result.failures.some((f) => f.file === file))
            result.failures.push({ file, reason: 'fetched but not kept (disk full or store failure?)' });
    }
    return result;
}
