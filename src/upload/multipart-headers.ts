/** Reading the headers of a multipart/form-data request and of its parts. */
import { LarderError } from '../base/errors.js';

/** Refuses anything but `multipart/form-data` before a byte of the body is read. */
export function assertMultipartFormData(contentType: string | undefined): void {
  if (!contentType?.trim()) {
    throw new LarderError('missing_content_type', 'Missing Content-Type. Upload with multipart/form-data.');
  }
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType !== 'multipart/form-data') {
    const shown = mediaType.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
    throw new LarderError('unsupported_media_type', `Unsupported Content-Type '${shown}'. Upload with multipart/form-data.`);
  }
}

/**
 * The `filename` (or RFC 5987 `filename*`) parameter of a part's Content-Disposition, as the client meant
 * it: quoted-pair escapes for `"` and `\` undone, and the `%22`/`%0A`/`%0D` escapes of the HTML form
 * encoding decoded. It keeps any path, so the filename checks can see `/` and `\`. Null when the part
 * carries no filename parameter, i.e. is a text field (RFC 7578: the filename makes a part a file).
 */
export function dispositionFilename(disposition: string | undefined): string | null {
  if (!disposition) return null;
  const extended = /(?:^|;)\s*filename\*\s*=\s*("?)([^;"]*)\1/i.exec(disposition);
  if (extended) {
    const decoded = decodeExtValue(extended[2]!.trim());
    if (decoded !== null) return decoded;
  }
  return plainParam(disposition, /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i);
}

/** The `name` parameter of a part's Content-Disposition (decoded like the filename); null when absent. */
export function dispositionName(disposition: string | undefined): string | null {
  if (!disposition) return null;
  return plainParam(disposition, /(?:^|;)\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i);
}

/** RFC 2046 §5.1.1: a boundary is 1 to 70 characters. */
export const MAX_BOUNDARY_LENGTH = 70;

const invalidMultipart = (detail: string) => new LarderError('invalid_multipart', `Invalid multipart body: ${detail}.`);

/**
 * The `boundary` parameter of a multipart Content-Type. A missing or empty one, one longer than RFC 2046
 * allows, or one with characters outside printable ASCII (which no client sends) is a 400.
 */
export function multipartBoundary(contentType: string): string {
  const m = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/i.exec(contentType);
  const boundary = m ? (m[1] ?? m[2]!).replace(/\\(.)/g, '$1') : '';
  if (!boundary) throw invalidMultipart('the Content-Type has no boundary parameter');
  if (boundary.length > MAX_BOUNDARY_LENGTH) {
    throw invalidMultipart(`the boundary is ${boundary.length} characters long, RFC 2046 allows at most ${MAX_BOUNDARY_LENGTH}`);
  }
  if (!/^[\x20-\x7e]*[\x21-\x7e]$/.test(boundary)) {
    throw invalidMultipart('the boundary has characters other than printable ASCII, or ends with a space');
  }
  return boundary;
}

function plainParam(header: string, pattern: RegExp): string | null {
  const plain = pattern.exec(header);
  if (!plain) return null;
  if (plain[1] === undefined) return plain[2]!.trim();
  return plain[1]
    .replace(/\\(["\\])/g, '$1')
    .replace(/%22/gi, '"')
    .replace(/%0A/gi, '\n')
    .replace(/%0D/gi, '\r');
}

/** `charset'lang'%xx…` (RFC 8187); null when it can not be decoded. */
function decodeExtValue(value: string): string | null {
  const m = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!m) return null;
  const charset = m[1]!.toLowerCase();
  try {
    if (charset === 'utf-8' || charset === 'utf8') return decodeURIComponent(m[2]!);
    if (charset === 'iso-8859-1' || charset === 'latin1') {
      return m[2]!.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
  } catch {
    return null;
  }
  return null;
}
