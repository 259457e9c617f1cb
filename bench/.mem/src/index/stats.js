export function collectStats(meta) {
    const sizes = new Map();
    let total = 0;
    for (const file of meta.allFiles()) {
        sizes.set(file.project, (sizes.get(file.project) ?? 0) + file.size);
        total += file.size;
    }
    const projects = [...sizes].map(([name, size]) => ({ name: meta.getProject(name)?.displayName ?? name, size }));
    return { projects, total };
}
/** Bytes and number of the private files. */
export function privateFileTotals(index) {
    let bytes = 0;
    let files = 0;
    for (const file of index.allFiles()) {
        bytes += file.size;
        files += 1;
    }
    return { bytes, files };
}
