/** A string naming the document, for in-memory maps (not a storage key). */
export function documentLabel(id) {
    return id.kind === 'release' ? `${id.kind} ${id.project} ${id.version}` : `${id.kind} ${id.project}`;
}
