/** Small helpers for reading untrusted JSON documents. */
export function isJsonObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/** Parses JSON text, naming the document in the error when it is not JSON. */
export function parseJsonText(text, what) {
    try {
        return JSON.parse(text);
    }
    catch (err) {
        throw new Error(`${what} is not valid JSON: ${err.message}`);
    }
}
export function stringOrNull(value) {
    return typeof value === 'string' ? value : null;
}
/** A list of strings, or null when absent or empty (the JSON API never sends `[]` for these). */
export function stringListOrNull(value) {
    if (!Array.isArray(value))
        return null;
    const list = value.filter((item) => typeof item === 'string');
    return list.length > 0 ? list : null;
}
export function sizeOrNull(value) {
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
