export function planFiles(closure) {
    const out = [];
    const sorted = [...closure.files.values()].sort((a, b) => a.project.localeCompare(b.project) || a.file.filename.localeCompare(b.file.filename));
    for (const { project, file, targets } of sorted) {
        const labels = [...targets].sort();
        out.push({ project, filename: file.filename, variant: 'file', size: file.size, targets: labels });
        if (file.coreMetadata !== false)
            out.push({ project, filename: file.filename, variant: 'metadata', size: null, targets: labels });
    }
    return out;
}
/** Projects, distribution files and their bytes per target (`.metadata` files not counted). */
export function summarize(files, targets) {
    return targets.map((target) => {
        const mine = files.filter((f) => f.variant === 'file' && f.targets.includes(target));
        return { target, projects: new Set(mine.map((f) => f.project)).size, files: mine.length, bytes: mine.reduce((n, f) => n + (f.size ?? 0), 0) };
    });
}
