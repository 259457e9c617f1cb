/**
 * An incremental scanner for a PEP 691 root document, `{"meta": ..., "projects": [item, ...]}`, fed in
 * pieces. It tracks only string/escape state and bracket depth; each element of the top-level
 * `projects` array is cut out and handed to JSON.parse on its own, so memory holds one element at most.
 * Values other than `projects` are skipped unchecked.
 */
/** Largest single `projects` element (or top-level key) the scanner will hold. */
export const MAX_ITEM_CHARS = 1 << 20;
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
function isWhitespace(c) {
    return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
export class RootJsonScanner {
    #where;
    /** Open containers, innermost last: OPEN_BRACE or OPEN_BRACKET. */
    #stack = [];
    #started = false;
    #done = false;
    #inString = false;
    #escape = false;
    /** In the top-level object: true where a key is due, false where a value is. */
    #expectKey = false;
    /** The last key read in the top-level object. */
    #key = '';
    #readingKey = false;
    #inProjects = false;
    #sawProjects = false;
    /** The text of the key or `projects` element being read, from pieces before this one. */
    #carry = '';
    #capturing = false;
    constructor(where = 'root JSON') {
        this.#where = where;
    }
    /** Adds text and returns the `projects` elements it completes, parsed. */
    push(text) {
        const raw = [];
        const stack = this.#stack;
        // The state lives in locals while the loop runs (the hot loop of a 30 MB document) and is stored back after.
        let inString = this.#inString;
        let escaping = this.#escape;
        let expectKey = this.#expectKey;
        let readingKey = this.#readingKey;
        let inProjects = this.#inProjects;
        let capturing = this.#capturing;
        let carry = this.#carry;
        let start = 0; // where the current key or element begins in `text`, when one is being read
        try {
            for (let i = 0; i < text.length; i++) {
                const c = text.charCodeAt(i);
                if (inString) {
                    if (escaping)
                        escaping = false;
                    else if (c === BACKSLASH)
                        escaping = true;
                    else if (c === QUOTE) {
                        inString = false;
                        if (readingKey) {
                            readingKey = false;
                            this.#key = JSON.parse(`"${carry}${text.slice(start, i)}"`);
                            carry = '';
                        }
                    }
                    continue;
                }
                if (isWhitespace(c))
                    continue;
                if (this.#done)
                    throw new Error(`${this.#where}: unexpected data after the end of the document`);
                const depth = stack.length;
                if (depth === 0) {
                    if (c !== OPEN_BRACE || this.#started)
                        throw new Error(`${this.#where}: expected a JSON object`);
                    this.#started = true;
                    expectKey = true;
                    stack.push(c);
                    continue;
                }
                if (inProjects && depth === 2 && (c === COMMA || c === CLOSE_BRACKET)) {
                    if (capturing) {
                        raw.push(carry + text.slice(start, i));
                        carry = '';
                        capturing = false;
                    }
                    if (c === CLOSE_BRACKET) {
                        stack.pop();
                        inProjects = false;
                    }
                    continue;
                }
                if (inProjects && !capturing) {
                    capturing = true;
                    start = i;
                }
                if (depth === 1 && !expectKey && c !== COMMA && c !== CLOSE_BRACE && c !== COLON) {
                    // A value of the top-level object starts here.
                    if (this.#key === 'projects') {
                        if (c !== OPEN_BRACKET)
                            throw new Error(`${this.#where}: "projects" is not an array`);
                        inProjects = true;
                        this.#sawProjects = true;
                    }
                }
                switch (c) {
                    case QUOTE:
                        inString = true;
                        if (depth === 1 && expectKey) {
                            readingKey = true;
                            start = i + 1;
                        }
                        break;
                    case OPEN_BRACE:
                    case OPEN_BRACKET:
                        stack.push(c);
                        break;
                    case CLOSE_BRACE:
                    case CLOSE_BRACKET:
                        if (stack.pop() !== (c === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) {
                            throw new Error(`${this.#where}: mismatched '${String.fromCharCode(c)}'`);
                        }
                        if (stack.length === 0)
                            this.#done = true;
                        break;
                    case COLON:
                        if (depth === 1)
                            expectKey = false;
                        break;
                    case COMMA:
                        if (depth === 1)
                            expectKey = true;
                        break;
                }
            }
            if (readingKey || capturing) {
                carry += text.slice(start);
                if (carry.length > MAX_ITEM_CHARS) {
                    throw new Error(`${this.#where}: a key or project entry is longer than ${MAX_ITEM_CHARS} characters`);
                }
            }
        }
        finally {
            this.#inString = inString;
            this.#escape = escaping;
            this.#expectKey = expectKey;
            this.#readingKey = readingKey;
            this.#inProjects = inProjects;
            this.#capturing = capturing;
            this.#carry = carry;
        }
        return raw.length === 0 ? [] : this.#parseItems(raw);
    }
    /** Ends the input; throws if the document was cut short or had no `projects` array. */
    finish() {
        if (!this.#started)
            throw new Error(`${this.#where}: empty document`);
        if (!this.#done)
            throw new Error(`${this.#where}: document ends early (truncated?)`);
        if (!this.#sawProjects)
            throw new Error(`${this.#where}: "projects" is missing`);
    }
    /** One JSON.parse for the whole piece; on failure, item by item to name the bad one. */
    #parseItems(raw) {
        try {
            return JSON.parse(`[${raw.join(',')}]`);
        }
        catch {
            return raw.map((item) => this.#parseItem(item));
        }
    }
    #parseItem(text) {
        try {
            return JSON.parse(text);
        }
        catch (err) {
            throw new Error(`${this.#where}: bad entry in "projects": ${err.message}`);
        }
    }
}
