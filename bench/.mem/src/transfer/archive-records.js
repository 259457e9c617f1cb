export const projectLine = (r) => ({ db: 'projects', key: r.name, value: r });
export const releaseLine = (r) => ({ db: 'releases', key: [r.project, r.version], value: r });
export const fileLine = (r) => ({ db: 'files', key: [r.project, r.filename], value: r });
export const deletedLine = (r) => ({ db: 'deleted-files', key: [r.project, r.filename], value: r.deletedAt });
export const allowedLine = (r) => ({ db: 'allowed-names', key: r.name, value: { by: r.by, at: r.at } });
export const userLine = (r) => ({ db: 'users', key: r.name, value: r });
export const tokenLine = (r) => ({ db: 'tokens', key: r.hash, value: r });
export const documentLine = (id, entry) => ({
    db: 'upstream-docs',
    key: id.kind === 'release' ? [id.kind, id.project, id.version] : [id.kind, id.project],
    value: entry,
});
export const cachedFileLine = (id, record) => ({
    db: 'upstream-files',
    key: [id.project, id.filename, id.variant],
    value: record,
});
// Readers of lines that import-verify.ts has checked.
export const deletedOf = (key, value) => {
    const [project, filename] = key;
    return { project, filename, deletedAt: value };
};
export const allowedOf = (key, value) => {
    const { by, at } = value;
    return { name: key, by, at };
};
export const documentIdOf = (key) => {
    const [kind, project, version] = key;
    return kind === 'release' ? { kind, project: project, version: version } : { kind: kind, project: project };
};
export const cachedFileIdOf = (key) => {
    const [project, filename, variant] = key;
    return { project: project, filename: filename, variant: variant };
};
/** The project a record belongs to, or null for records that belong to none (users, tokens). */
export function projectOf(line) {
    switch (line.db) {
        case 'projects':
        case 'allowed-names':
            return line.key;
        case 'releases':
        case 'files':
        case 'deleted-files':
        case 'upstream-files':
            return line.key[0];
        case 'upstream-docs':
            return line.key[1];
        default:
            return null;
    }
}
