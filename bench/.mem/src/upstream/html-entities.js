/**
 * Decodes character references in HTML text: numeric ones and the few named ones an index page uses.
 * Unknown named references are left as written. (Project names are ASCII letters, digits and `._-`,
 * so a root page needs little more.)
 */
const NAMED = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
export function decodeHtmlEntities(text) {
    if (!text.includes('&'))
        return text;
    return text.replace(/&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,8})|([a-zA-Z][a-zA-Z0-9]{0,31}));?/g, (whole, dec, hex, name) => {
        if (name !== undefined)
            return NAMED[name] ?? whole;
        const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex, 16);
        const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
        return valid ? String.fromCodePoint(code) : '\ufffd';
    });
}
