/** sha256 of every blob a private record needs (files, `.metadata`, `.asc`): never evicted or collected. */
export function privateBlobs(index) {
    const shas = new Set();
    for (const f of index.allFiles()) {
        shas.add(f.sha256);
        if (f.metadataSha256)
            shas.add(f.metadataSha256);
        if (f.signatureSha256)
            shas.add(f.signatureSha256);
    }
    return shas;
}
/** sha256 of every blob a private record or a cached upstream file record needs. */
export function referencedBlobs(index, cachedFiles) {
    const shas = privateBlobs(index);
    for (const { record } of cachedFiles.entries())
        shas.add(record.sha256);
    return shas;
}
