/**
 * PEP 440 version specifiers, checked as `packaging.specifiers` checks them (its `Specifier` regular
 * expression, ported): `Requires-Python` is a specifier set, and the version part of a PEP 508
 * requirement is read with the same pattern. Syntax only; matching versions is @renovatebot/pep440's job.
 */

const PRE = '(?:[-_.]?(?:alpha|beta|preview|pre|a|b|c|rc)[-_.]?[0-9]*)?';
const POST = '(?:(?:-[0-9]+)|(?:[-_.]?(?:post|rev|r)[-_.]?[0-9]*))?';
const DEV = '(?:[-_.]?dev[-_.]?[0-9]*)?';
const LOCAL = '(?:\\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?';
const EPOCH = '(?:[0-9]+!)?';

/** One specifier (`>=3.8`, `==1.*`, `~=2.2`, `===anything`), without anchors; match case-insensitively. */
export const SPECIFIER_PATTERN = [
  // The identity operator takes any string without whitespace, `;` or `)`.
  '===\\s*[^\\s;)]*',
  // `==` and `!=` also take a `.*` prefix match or a local version.
  `(?:==|!=)\\s*v?${EPOCH}[0-9]+(?:\\.[0-9]+)*(?:\\.\\*|${PRE}${POST}${DEV}${LOCAL})?`,
  // `~=` needs at least two release segments.
  `~=\\s*v?${EPOCH}[0-9]+(?:\\.[0-9]+)+${PRE}${POST}${DEV}`,
  `(?:<=|>=|<|>)\\s*v?${EPOCH}[0-9]+(?:\\.[0-9]+)*${PRE}${POST}${DEV}`,
]
  .map((alternative) => `(?:${alternative})`)
  .join('|');

const SPECIFIER = new RegExp(`^\\s*(?:${SPECIFIER_PATTERN})\\s*$`, 'i');

/** Whether `text` is a valid specifier set: comma-separated specifiers, empty ones ignored (so `''` is valid, as in packaging). */
export function isValidSpecifierSet(text: string): boolean {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .every((part) => SPECIFIER.test(part));
}
