/** Upload times, from the model's ISO 8601 UTC string to the forms the APIs publish. */
const UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(?:Z|[+-]00:?00)?$/i;
/**
 * `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` (PEP 700 `upload-time`, JSON API `upload_time_iso_8601`), or null when
 * unknown or unreadable. A timestamp without zone counts as UTC, as the model promises; the fraction is
 * kept as given, cut to 6 digits.
 */
export function isoUploadTime(value) {
    if (!value)
        return null;
    const match = UTC_TIMESTAMP.exec(value.trim());
    if (match) {
        const fraction = match[3] ? `.${match[3].slice(0, 6)}` : '';
        return `${match[1]}T${match[2]}${fraction}Z`;
    }
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
/** `%Y-%m-%dT%H:%M:%S` (JSON API `upload_time`: no fraction, no zone). */
export function naiveUploadTime(value) {
    return isoUploadTime(value)?.slice(0, 19) ?? null;
}
