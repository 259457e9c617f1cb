/**
 * Records of mirror sets (`larder mirror add`): what a set was made from (inputs, targets, options), the
 * files it needs, and how its last sync ended. Cache eviction spares every file a set needs.
 */
/** The key cache eviction and the export compare cached files by. */
export const mirrorFileKey = (project, filename, variant) => `${project}\u0000${filename}\u0000${variant}`;
/** Keys of every cached file some mirror set needs. */
export function pinnedFiles(store) {
    const keys = new Set();
    for (const set of store.list())
        for (const f of set.files)
            keys.add(mirrorFileKey(f.project, f.filename, f.variant));
    return keys;
}
