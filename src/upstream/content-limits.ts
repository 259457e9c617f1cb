/**
 * Limits on what larder parses from an upstream document (project pages, JSON API documents). They bound
 * both memory and the work of one synchronous step; docs/security.md gives the reasoning for each value.
 */

/** Attributes on one HTML tag (duplicates count). pypi.org's anchors carry at most 7. */
export const MAX_ATTRIBUTES_PER_TAG = 64;
/** Characters in one HTML attribute value, as written (before entity decoding), and in the page's <title>. */
export const MAX_ATTRIBUTE_CHARS = 64 * 1024;
/** Characters in one HTML tag from `<` to `>`: its name and all its attributes. */
export const MAX_TAG_CHARS = 256 * 1024;
/**
 * Links on one project page, and files in one JSON page or JSON API document. A pypi.org anchor is about
 * 450 bytes, so a real page at the 64 MiB document bound holds about 150,000.
 */
export const MAX_LINKS_PER_PAGE = 200_000;
/**
 * Distinct versions on one project page or JSON API document. pypi.org's projects with the most releases
 * (nightly builds) have a few thousand; every version is parsed and sorted once when the page is read,
 * which for 50,000 takes about 0.15 s on one core (0.4 s on a busy one): the bound on that one step.
 */
export const MAX_VERSIONS_PER_PAGE = 50_000;
/** Characters of a comment that are kept to look for `<!-- SERIAL n -->`; longer comments are skipped. */
export const MAX_KEPT_COMMENT_CHARS = 1024;

/** Nesting of arrays and objects in a JSON document. pypi.org's go 4 deep. */
export const MAX_JSON_DEPTH = 32;
/**
 * Characters of one JSON value larder parses as a unit: a file entry, one field of `info`, `meta`, one
 * vulnerability. JSON.parse's time grows faster than the text for objects with many keys, so units stay small.
 */
export const MAX_JSON_ITEM_CHARS = 1024 * 1024;
/** Characters of one JSON string parsed as a unit (a long description); strings cost JSON.parse little. */
export const MAX_JSON_STRING_CHARS = 16 * 1024 * 1024;
/** Keys in one JSON object inside a unit. pypi.org's largest (`info`) has about 30. */
export const MAX_JSON_OBJECT_KEYS = 1000;

/** A document that breaks one of these limits: the message names the limit. */
export class ContentLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContentLimitError';
  }
}
