/**
 * Where larder may send requests: the upstream's own origin (and its JSON API's), the origins named in
 * LARDER_FILE_HOSTS, and https://files.pythonhosted.org when the upstream is pypi.org. Every URL a page
 * lists and every redirect is checked before a request leaves, so another host never sees one.
 */
const PYPI = 'https://pypi.org';
const PYPI_FILES = 'https://files.pythonhosted.org';
export class OriginPolicy {
    allowed;
    constructor(upstream, jsonApi, fileHosts) {
        const origins = new Set(fileHosts);
        for (const url of [upstream, jsonApi])
            if (url)
                origins.add(new URL(url).origin);
        if (origins.has(PYPI))
            origins.add(PYPI_FILES);
        this.allowed = origins;
    }
    /** The reason `url` may not be fetched, or null when it may. */
    refusal(url) {
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
            return `${url.protocol} URLs are never fetched`;
        if (this.allowed.has(url.origin))
            return null;
        return `${url.origin} is not the upstream's origin nor one of LARDER_FILE_HOSTS (allowed: ${[...this.allowed].join(', ')})`;
    }
}
