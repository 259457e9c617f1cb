/**
 * Python's `repr()` of a string, which PyPI's messages put around values (`'foo-' is an invalid value…`).
 * Long values are shortened the way Warehouse's form errors shorten them.
 */
export function pyRepr(value, maxLength = Infinity) {
    const shown = value.length > maxLength ? `${value.slice(0, 30)}...${value.slice(-30)}` : value;
    const quote = shown.includes("'") && !shown.includes('"') ? '"' : "'";
    let out = quote;
    for (const ch of shown) {
        const code = ch.codePointAt(0);
        if (ch === '\\')
            out += '\\\\';
        else if (ch === quote)
            out += `\\${quote}`;
        else if (ch === '\n')
            out += '\\n';
        else if (ch === '\r')
            out += '\\r';
        else if (ch === '\t')
            out += '\\t';
        else if (code < 0x20 || (code >= 0x7f && code < 0xa0))
            out += `\\x${code.toString(16).padStart(2, '0')}`;
        else
            out += ch;
    }
    return out + quote;
}
