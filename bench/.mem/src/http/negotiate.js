export const MEDIA_V1_JSON = 'application/vnd.pypi.simple.v1+json';
export const MEDIA_V1_HTML = 'application/vnd.pypi.simple.v1+html';
export const MEDIA_LATEST_JSON = 'application/vnd.pypi.simple.latest+json';
export const MEDIA_LATEST_HTML = 'application/vnd.pypi.simple.latest+html';
export const MEDIA_TEXT_HTML = 'text/html';
const V1_JSON = { contentType: MEDIA_V1_JSON, format: 'json' };
const V1_HTML = { contentType: MEDIA_V1_HTML, format: 'html' };
const TEXT_HTML = { contentType: 'text/html; charset=utf-8', format: 'html' };
const FORMAT_VALUES = {
    [MEDIA_V1_JSON]: V1_JSON,
    [MEDIA_LATEST_JSON]: V1_JSON,
    [MEDIA_V1_HTML]: V1_HTML,
    [MEDIA_LATEST_HTML]: V1_HTML,
    [MEDIA_TEXT_HTML]: TEXT_HTML,
};
const OFFERS = [
    { result: V1_JSON, names: [MEDIA_V1_JSON, MEDIA_LATEST_JSON] },
    { result: V1_HTML, names: [MEDIA_V1_HTML, MEDIA_LATEST_HTML] },
    { result: TEXT_HTML, names: [MEDIA_TEXT_HTML] },
];
export function negotiateSimple(formatParam, accept) {
    const byFormat = formatParam === undefined ? undefined : FORMAT_VALUES[formatParam.trim().toLowerCase()];
    if (byFormat)
        return byFormat;
    const ranges = parseAccept(accept === undefined || accept.trim() === '' ? '*/*' : accept);
    const acceptable = OFFERS.map((offer) => ({ offer, match: matchOffer(offer, ranges) })).filter((entry) => entry.match !== null && entry.match.q > 0);
    if (acceptable.length === 0)
        return TEXT_HTML;
    const topQ = Math.max(...acceptable.map((entry) => entry.match.q));
    const tied = acceptable.filter((entry) => entry.match.q === topQ);
    const named = tied.find((entry) => !entry.match.wildcardOnly);
    // Wildcard-only ties: OFFERS runs from JSON to text/html, so the last tied offer is the most HTML-like.
    return (named ?? tied[tied.length - 1]).offer.result;
}
/** The q of the most specific range naming the offer, and whether that range was `*` + `/*`. */
function matchOffer(offer, ranges) {
    const candidates = [...offer.names, `${offer.names[0].split('/')[0]}/*`, '*/*'];
    for (const candidate of candidates) {
        const matching = ranges.filter((range) => range.type === candidate);
        if (matching.length > 0) {
            return { q: Math.max(...matching.map((range) => range.q)), wildcardOnly: candidate === '*/*' };
        }
    }
    return null;
}
/** `type/subtype;param=…;q=…, …` → ranges; parameters other than q are ignored, malformed entries dropped. */
export function parseAccept(header) {
    const ranges = [];
    for (const entry of header.split(',')) {
        const [rawType, ...params] = entry.split(';');
        const type = rawType.trim().toLowerCase();
        if (!/^[^\s/]+\/[^\s/]+$/.test(type))
            continue;
        let q = 1;
        for (const param of params) {
            const [key, value] = param.split('=').map((part) => part.trim());
            if (key?.toLowerCase() !== 'q')
                continue;
            q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : Number.NaN;
        }
        if (!Number.isNaN(q))
            ranges.push({ type, q });
    }
    return ranges;
}
export function memoNegotiator(limit = 256) {
    const known = new Map();
    return (formatParam, accept) => {
        const key = `${formatParam ?? ''}\n${accept ?? ''}`;
        let chosen = known.get(key);
        if (!chosen) {
            chosen = negotiateSimple(formatParam, accept);
            if (known.size >= limit)
                known.delete(known.keys().next().value);
            known.set(key, chosen);
        }
        return chosen;
    };
}
