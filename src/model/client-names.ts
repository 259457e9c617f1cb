/**
 * The checks of the names a client sends (project names, versions, file names) before they reach the
 * store, a storage key or the upstream.
 */
import { badRequest } from '../base/errors.js';
import type { CodeWithStatus } from '../base/error-catalogue.js';
import { MAX_NAME_LENGTH, MAX_SEGMENT_BYTES, isValidProjectName } from './names.js';
import { pyRepr } from './py-repr.js';

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

function checkSegment(value: string, code: CodeWithStatus<400>, what: string): void {
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
