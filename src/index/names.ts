/**
 * Project name rules of PEP 503 and the core-metadata spec, and the checks of the names a client sends
 * (project names, versions, file names) before they reach the store, an LMDB key or the upstream.
 */
import { badRequest } from '../errors.js';
import { pyRepr } from './py-repr.js';

const VALID_NAME = /^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$/i;

/** Longest project name accepted from a client. */
export const MAX_NAME_LENGTH = 200;
/** Longest version or file name accepted from a client, in UTF-8 bytes (LMDB keys hold at most ~1,978). */
export const MAX_SEGMENT_BYTES = 255;

export type ProjectName = string & { readonly __normalized: unique symbol };

export function isValidProjectName(name: string): boolean {
  // `$` in JS never matches before a trailing newline (unlike Python's), so this equals the spec's `\Z`.
  return VALID_NAME.test(name);
}

export function normalizeName(name: string): ProjectName {
  return name.replace(/[-_.]+/g, '-').toLowerCase() as ProjectName;
}

export function isNormalized(name: string): boolean {
  return normalizeName(name) === name;
}

/** The form a wheel or PEP 625 sdist filename uses for a project name: normalized, `-` written `_`. */
export function filenameProjectPart(name: string): string {
  return normalizeName(name).replace(/-/g, '_');
}

/** A project name from a client: PEP 508 and at most 200 characters, or a 400 that states the rule. */
export function checkProjectName(name: string): void {
  if (name.length <= MAX_NAME_LENGTH && isValidProjectName(name)) return;
  const length = name.length > MAX_NAME_LENGTH ? ` (${name.length} characters)` : '';
  throw badRequest(
    'invalid_name',
    `${pyRepr(name, 60)}${length} is not a valid project name: names are 1 to ${MAX_NAME_LENGTH} letters, digits, '.', '-' or '_', ` +
      'starting and ending with a letter or digit (PEP 508).',
  );
}

function checkSegment(value: string, code: string, what: string): void {
  const bytes = Buffer.byteLength(value);
  if (bytes <= MAX_SEGMENT_BYTES) return;
  throw badRequest(code, `The ${what} ${pyRepr(value, 60)} is too long (${bytes} bytes): ${what}s are at most ${MAX_SEGMENT_BYTES} bytes.`);
}

/** A version from a client (a URL segment, a CLI argument): at most 255 bytes, or a 400. */
export function checkVersionSegment(version: string): void {
  checkSegment(version, 'version_too_long', 'version');
}

/** A file name from a client (a URL segment, an upload, a CLI argument): at most 255 bytes, or a 400. */
export function checkFilenameSegment(filename: string): void {
  checkSegment(filename, 'filename_too_long', 'file name');
}
