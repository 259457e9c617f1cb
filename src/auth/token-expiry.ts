/**
 * When a new API token stops working, as the CLI's `--expires` and the web form give it: a duration
 * (`12h`, `30d`, `8w`, `1y`), a date (`2027-01-31`: that day at 00:00 UTC), an ISO time, or `never`.
 */

export type ExpiryChoice = { ok: true; expiresAt: Date | null } | { ok: false; problem: string };

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, y: 365 * 86_400_000 };
/** Further than this is taken for a typing mistake (and would not fit a Date much beyond). */
const LONGEST_MS = 100 * UNIT_MS.y!;

export const EXPIRY_HELP = "a duration such as 30d, 12h, 8w or 1y, a date such as 2027-01-31, or 'never'";

export function parseExpiry(text: string, now: number): ExpiryChoice {
  const raw = text.trim().toLowerCase();
  if (raw === 'never') return { ok: true, expiresAt: null };
  const duration = /^(\d{1,6})\s*([hdwy])$/.exec(raw);
  let at: number;
  if (duration) at = now + Number(duration[1]) * UNIT_MS[duration[2]!]!;
  else if (/^\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?$/.test(raw)) {
    if (!isCalendarDate(raw.slice(0, 10))) return { ok: false, problem: `'${raw.slice(0, 10)}' is not a valid date` };
    // A bare date or a time without a zone is read as UTC.
    const iso = raw.length === 10 ? `${raw}T00:00:00Z` : /z|[+-]\d{2}:?\d{2}$/.test(raw.slice(10)) ? raw : `${raw}Z`;
    at = Date.parse(iso.replace(' ', 'T').toUpperCase());
  } else return { ok: false, problem: `'${text.slice(0, 40)}' is not ${EXPIRY_HELP}` };
  if (!Number.isFinite(at)) return { ok: false, problem: `'${text.slice(0, 40)}' is not a valid date` };
  if (at <= now) return { ok: false, problem: `${new Date(at).toISOString()} is not in the future` };
  if (at - now > LONGEST_MS) return { ok: false, problem: 'an expiry more than 100 years ahead: use never' };
  return { ok: true, expiresAt: new Date(at) };
}

/** Date.parse rolls 2027-02-31 over to March; a person meant a day that does not exist. */
function isCalendarDate(ymd: string): boolean {
  const [year, month, day] = ymd.split('-').map(Number) as [number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
