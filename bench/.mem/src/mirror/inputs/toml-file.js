/** Reading a TOML lock file with smol-toml, and the small checks every lock reader needs. */
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { InputError } from '../requirement.js';
export function readToml(path) {
    let content;
    try {
        content = readFileSync(path, 'utf8');
    }
    catch (err) {
        throw new InputError(`cannot read ${path}: ${err.code ?? err.message}`);
    }
    try {
        return parse(content);
    }
    catch (err) {
        throw new InputError(`${path} is not valid TOML: ${err.message.split('\n', 1)[0]}`);
    }
}
export const tables = (value) => (Array.isArray(value) ? value.filter((v) => typeof v === 'object' && v !== null) : []);
export const str = (value) => (typeof value === 'string' ? value : null);
/** `sha256:HEX` → HEX; other algorithms → null. */
export function sha256Of(hash) {
    const m = typeof hash === 'string' ? /^sha256[:=]([0-9a-fA-F]{64})$/.exec(hash) : null;
    return m ? m[1].toLowerCase() : null;
}
export function requireField(table, field, origin) {
    const value = str(table[field]);
    if (!value)
        throw new InputError(`${origin}: a package has no '${field}'`);
    return value;
}
