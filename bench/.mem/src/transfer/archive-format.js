/**
 * The larder export archive (format version 1): one uncompressed POSIX tar, written by `larder export` and
 * read by `larder import`. Entries, in this order:
 *
 *   larder-export.json      header: format, formatVersion, createdAt, larderVersion, options, counts
 *   records/<db>.jsonl      one line per record of kind <db>: {"k": key, "v": value} (archive-records.ts);
 *                           keys and values use the lossless JSON encoding below (array keys stay arrays)
 *   blobs/<sha256>          the bytes of every blob a record references (file, `.metadata`, `.asc`, cached
 *                           upstream file), each once, named by the sha256 of its content
 *   manifest.json           last: {"format", "formatVersion", "entries": [{"name", "size", "sha256"}, …]} for
 *                           every entry before it (header and records included)
 *
 * Kinds: the private part is projects, releases, files, deleted-files, allowed-names (users and tokens
 * with --include-users); the cache part is upstream-docs (without the ['root'] entry, whose project list
 * file is not exported) and upstream-files. The changelog and the serial counter are never exported: an
 * import gives every change a new local serial.
 *
 * A reader must refuse the whole archive when anything disagrees with the manifest, when the manifest is
 * missing (the archive is truncated), or when the format version is one it does not know.
 */
export const FORMAT = 'larder-export';
export const FORMAT_VERSION = 1;
export const HEADER_ENTRY = 'larder-export.json';
export const MANIFEST_ENTRY = 'manifest.json';
export const RECORDS_PREFIX = 'records/';
export const BLOBS_PREFIX = 'blobs/';
export const PRIVATE_DBS = ['projects', 'releases', 'files', 'deleted-files', 'allowed-names'];
export const USER_DBS = ['users', 'tokens'];
export const CACHE_DBS = ['upstream-docs', 'upstream-files'];
/** Every database an archive may hold, in the order they are written and applied. */
export const ALL_DBS = [...PRIVATE_DBS, ...USER_DBS, ...CACHE_DBS];
export const SHA256_HEX = /^[0-9a-f]{64}$/;
export const recordsEntry = (db) => `${RECORDS_PREFIX}${db}.jsonl`;
export const blobEntry = (sha256) => `${BLOBS_PREFIX}${sha256}`;
/** What an entry name denotes, or null for a name no larder archive holds. */
export function classifyEntry(name) {
    if (name === HEADER_ENTRY)
        return { kind: 'header' };
    if (name === MANIFEST_ENTRY)
        return { kind: 'manifest' };
    if (name.startsWith(RECORDS_PREFIX) && name.endsWith('.jsonl')) {
        const db = name.slice(RECORDS_PREFIX.length, -'.jsonl'.length);
        return ALL_DBS.includes(db) ? { kind: 'records', db: db } : null;
    }
    if (name.startsWith(BLOBS_PREFIX)) {
        const sha256 = name.slice(BLOBS_PREFIX.length);
        return SHA256_HEX.test(sha256) ? { kind: 'blob', sha256 } : null;
    }
    return null;
}
/** Abbreviates a blob entry name for messages: `blobs/ab12cd34…`. */
export function shortName(name) {
    return name.startsWith(BLOBS_PREFIX) ? `${name.slice(0, BLOBS_PREFIX.length + 12)}…` : name;
}
export function encodeValue(value) {
    if (value === null || typeof value === 'string' || typeof value === 'boolean')
        return value;
    if (typeof value === 'number')
        return Number.isFinite(value) && !Object.is(value, -0) ? value : { $t: 'number', v: String(value === 0 ? '-0' : value) };
    if (value === undefined)
        return { $t: 'undefined' };
    if (typeof value === 'bigint')
        return { $t: 'bigint', v: value.toString() };
    if (Array.isArray(value))
        return value.map(encodeValue);
    if (value instanceof Date)
        return { $t: 'date', v: Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString() };
    if (value instanceof Uint8Array)
        return { $t: 'bytes', v: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
    if (value instanceof Map)
        return { $t: 'map', v: [...value].map(([k, v]) => [encodeValue(k), encodeValue(v)]) };
    if (value instanceof Set)
        return { $t: 'set', v: [...value].map(encodeValue) };
    if (typeof value === 'object') {
        const out = {};
        for (const [k, v] of Object.entries(value))
            out[k] = encodeValue(v);
        return Object.hasOwn(value, '$t') ? { $t: 'object', v: out } : out;
    }
    throw new Error(`cannot export a value of type ${typeof value}`);
}
export function decodeValue(json) {
    if (json === null || typeof json !== 'object')
        return json;
    if (Array.isArray(json))
        return json.map(decodeValue);
    const obj = json;
    if (!Object.hasOwn(obj, '$t')) {
        const out = {};
        for (const [k, v] of Object.entries(obj))
            out[k] = decodeValue(v);
        return out;
    }
    const v = obj.v;
    switch (obj.$t) {
        case 'undefined':
            return undefined;
        case 'number':
            return v === '-0' ? -0 : Number(v);
        case 'bigint':
            return BigInt(String(v));
        case 'date':
            return new Date(v === 'invalid' ? NaN : String(v));
        case 'bytes':
            return Buffer.from(String(v), 'base64');
        case 'map':
            return new Map(v.map(([k, x]) => [decodeValue(k), decodeValue(x)]));
        case 'set':
            return new Set(v.map(decodeValue));
        case 'object': {
            const out = {};
            for (const [k, x] of Object.entries(v))
                out[k] = decodeValue(x);
            return out;
        }
        default:
            throw new Error(`unknown value tag ${JSON.stringify(obj.$t)}`);
    }
}
/** One records line (without the newline). */
export function encodeRecord(key, value) {
    return JSON.stringify({ k: encodeValue(key), v: encodeValue(value) });
}
export function decodeRecord(line) {
    const parsed = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || !Object.hasOwn(parsed, 'k') || !Object.hasOwn(parsed, 'v')) {
        throw new Error('not a {"k", "v"} record');
    }
    const { k, v } = parsed;
    return { key: decodeValue(k), value: decodeValue(v) };
}
