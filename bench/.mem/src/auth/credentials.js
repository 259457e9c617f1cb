/** Reads credentials from an Authorization header: HTTP Basic, or `token <t>` / `bearer <t>`. */
export function parseAuthorization(header) {
    if (!header)
        return null;
    const space = header.indexOf(' ');
    if (space < 0)
        return null;
    const scheme = header.slice(0, space).toLowerCase();
    const value = header.slice(space + 1).trim();
    if (scheme === 'token' || scheme === 'bearer')
        return value ? { kind: 'token', token: value } : null;
    if (scheme !== 'basic')
        return null;
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0)
        return null;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    if (user === '__token__')
        return { kind: 'token', token: password };
    return { kind: 'password', user, password };
}
