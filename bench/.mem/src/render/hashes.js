/**
 * Hash names an index may show clients: the ones hashlib guarantees and pip accepts in a URL fragment
 * (`_SUPPORTED_HASHES`). Others such as `blake2b_256` are left out, because pip calls
 * `hashlib.new(name)` on every name it is given and fails the install with "Unknown hash name".
 */
const INDEX_HASH_NAMES = ['sha256', 'sha512', 'sha384', 'sha224', 'sha1', 'md5'];
const HEX = /^[0-9a-f]+$/;
/** The hashes of `hashes` that may be published, with lowercase hex values. */
export function indexHashes(hashes) {
    const out = {};
    for (const name of INDEX_HASH_NAMES) {
        const hex = hashes[name]?.toLowerCase();
        if (hex && HEX.test(hex))
            out[name] = hex;
    }
    return out;
}
/** The one hash to put in a URL fragment or `data-core-metadata`: sha256 if known, else the strongest. */
export function preferredHash(hashes) {
    const usable = indexHashes(hashes);
    for (const name of INDEX_HASH_NAMES) {
        const hex = usable[name];
        if (hex)
            return { name, hex };
    }
    return null;
}
