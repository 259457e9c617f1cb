/**
 * Warehouse's "json-with-newline" wire format: `json.dumps(sort_keys=True, separators=(",", ":"),
 * ensure_ascii=False) + "\n"`.
 *
 * Objects are serialized by hand rather than rebuilt and passed to JSON.stringify: a JS object lists
 * integer-like keys (a release "2") before all others, whatever order they were inserted in.
 */
export function toWireJson(value) {
    return `${toCompactJson(value)}\n`;
}
/** The same, without the trailing newline (for documents assembled from pieces). */
export function toCompactJson(value) {
    return serialize(value) ?? 'null';
}
/** undefined for values JSON.stringify leaves out of objects (undefined, functions, symbols). */
function serialize(value) {
    if (value === null)
        return 'null';
    switch (typeof value) {
        case 'string':
        case 'boolean':
            return JSON.stringify(value);
        case 'number':
            return Number.isFinite(value) ? JSON.stringify(value) : 'null';
        case 'bigint':
            return value.toString();
        case 'object':
            return Array.isArray(value) ? serializeArray(value) : serializeObject(value);
        default:
            return undefined;
    }
}
function serializeArray(items) {
    return `[${items.map((item) => serialize(item) ?? 'null').join(',')}]`;
}
function serializeObject(object) {
    const parts = [];
    const keys = Object.keys(object);
    // The built-in sort (UTF-16 units) equals code-point order unless a key holds a surrogate pair.
    if (keys.some((key) => SURROGATE.test(key)))
        keys.sort(compareCodePoints);
    else
        keys.sort();
    for (const key of keys) {
        const serialized = serialize(object[key]);
        if (serialized !== undefined)
            parts.push(`${JSON.stringify(key)}:${serialized}`);
    }
    return `{${parts.join(',')}}`;
}
const SURROGATE = /[\uD800-\uDFFF]/;
/** Python's str ordering (by code point); plain `<` orders astral characters by UTF-16 code unit. */
export function compareCodePoints(a, b) {
    const length = Math.min(a.length, b.length);
    for (let i = 0; i < length; i++) {
        const x = a.charCodeAt(i);
        const y = b.charCodeAt(i);
        if (x !== y)
            return codePointRank(x) - codePointRank(y);
    }
    return a.length - b.length;
}
/** Moves surrogates (astral code points) above U+E000–U+FFFF, keeping every other order. */
function codePointRank(unit) {
    if (unit >= 0xd800 && unit <= 0xdfff)
        return unit + 0x2000;
    if (unit >= 0xe000)
        return unit - 0x800;
    return unit;
}
