/**
 * Content negotiation of the simple pages (PEP 691's server algorithm; docs/index-api.md, "Content negotiation").
 *
 * 1. A `format` query parameter that is exactly one of the five simple media types wins.
 * 2. Otherwise each offer (v1+json, v1+html, text/html, in that order) takes the q of the most specific
 *    `Accept` range matching it: the exact type, then its `latest` alias, then `type/*`, then `*` + `/*`.
 *    Offers at q=0 are dropped; the highest q wins, ties go to the earlier offer.
 * 3. No offer left → text/html, as pypi.org does (never 406 or 300).
 *
 * Refinement of the tie rule in 2, so that a client without `Accept` gets HTML as on pypi.org: among offers tied at the highest q, one the
 * client matched by a named range (`text/html`, `application/*`) beats one it matched only by `*` + `/*`,
 * and when all of them came from `*` + `/*` alone (a missing `Accept`, `*` + `/*`, a browser's fallback)
 * the HTML offers come first: such a client never said it reads PEP 691 JSON.
 */
export type SimpleFormat = 'json' | 'html';

export interface Negotiated {
  contentType: string;
  format: SimpleFormat;
}

export const MEDIA_V1_JSON = 'application/vnd.pypi.simple.v1+json';
export const MEDIA_V1_HTML = 'application/vnd.pypi.simple.v1+html';
export const MEDIA_LATEST_JSON = 'application/vnd.pypi.simple.latest+json';
export const MEDIA_LATEST_HTML = 'application/vnd.pypi.simple.latest+html';
export const MEDIA_TEXT_HTML = 'text/html';

const V1_JSON: Negotiated = { contentType: MEDIA_V1_JSON, format: 'json' };
const V1_HTML: Negotiated = { contentType: MEDIA_V1_HTML, format: 'html' };
const TEXT_HTML: Negotiated = { contentType: 'text/html; charset=utf-8', format: 'html' };

const FORMAT_VALUES: Record<string, Negotiated> = {
  [MEDIA_V1_JSON]: V1_JSON,
  [MEDIA_LATEST_JSON]: V1_JSON,
  [MEDIA_V1_HTML]: V1_HTML,
  [MEDIA_LATEST_HTML]: V1_HTML,
  [MEDIA_TEXT_HTML]: TEXT_HTML,
};

interface Offer {
  result: Negotiated;
  /** Media types that name this offer, most specific first. */
  names: string[];
}

const OFFERS: Offer[] = [
  { result: V1_JSON, names: [MEDIA_V1_JSON, MEDIA_LATEST_JSON] },
  { result: V1_HTML, names: [MEDIA_V1_HTML, MEDIA_LATEST_HTML] },
  { result: TEXT_HTML, names: [MEDIA_TEXT_HTML] },
];

interface MediaRange {
  type: string;
  q: number;
}

export function negotiateSimple(formatParam: string | undefined, accept: string | undefined): Negotiated {
  const byFormat = formatParam === undefined ? undefined : FORMAT_VALUES[formatParam.trim().toLowerCase()];
  if (byFormat) return byFormat;

  const ranges = parseAccept(accept === undefined || accept.trim() === '' ? '*/*' : accept);
  const acceptable = OFFERS.map((offer) => ({ offer, match: matchOffer(offer, ranges) })).filter(
    (entry): entry is { offer: Offer; match: OfferMatch } => entry.match !== null && entry.match.q > 0,
  );
  if (acceptable.length === 0) return TEXT_HTML;
  const topQ = Math.max(...acceptable.map((entry) => entry.match.q));
  const tied = acceptable.filter((entry) => entry.match.q === topQ);
  const named = tied.find((entry) => !entry.match.wildcardOnly);
  // Wildcard-only ties: OFFERS runs from JSON to text/html, so the last tied offer is the most HTML-like.
  return (named ?? tied[tied.length - 1]!).offer.result;
}

interface OfferMatch {
  q: number;
  /** Matched only by the `*` + `/*` range. */
  wildcardOnly: boolean;
}

/** The q of the most specific range naming the offer, and whether that range was `*` + `/*`. */
function matchOffer(offer: Offer, ranges: MediaRange[]): OfferMatch | null {
  const candidates = [...offer.names, `${offer.names[0]!.split('/')[0]}/*`, '*/*'];
  for (const candidate of candidates) {
    const matching = ranges.filter((range) => range.type === candidate);
    if (matching.length > 0) {
      return { q: Math.max(...matching.map((range) => range.q)), wildcardOnly: candidate === '*/*' };
    }
  }
  return null;
}

/** `type/subtype;param=…;q=…, …` → ranges; parameters other than q are ignored, malformed entries dropped. */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const entry of header.split(',')) {
    const [rawType, ...params] = entry.split(';');
    const type = rawType!.trim().toLowerCase();
    if (!/^[^\s/]+\/[^\s/]+$/.test(type)) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((part) => part.trim());
      if (key?.toLowerCase() !== 'q') continue;
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : Number.NaN;
    }
    if (!Number.isNaN(q)) ranges.push({ type, q });
  }
  return ranges;
}

/** Negotiation with a memo: clients send a handful of distinct Accept headers, and each is parsed once. */
export type Negotiator = (formatParam: string | undefined, accept: string | undefined) => Negotiated;

export function memoNegotiator(limit = 256): Negotiator {
  const known = new Map<string, Negotiated>();
  return (formatParam, accept) => {
    const key = `${formatParam ?? ''}\n${accept ?? ''}`;
    let chosen = known.get(key);
    if (!chosen) {
      chosen = negotiateSimple(formatParam, accept);
      if (known.size >= limit) known.delete(known.keys().next().value!);
      known.set(key, chosen);
    }
    return chosen;
  };
}
