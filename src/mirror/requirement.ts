/**
 * What a mirror set is asked for: requirements to expand (from requirements files, and every
 * `Requires-Dist` met on the way) and locked packages to take as they are (from lock files).
 * PEP 508 strings are parsed by `pip-requirements-js`.
 */
import { parsePipRequirementsLine, type EnvironmentMarker, type Requirement as ParsedLine } from 'pip-requirements-js';
import { normalizeName, type ProjectName } from '../model/names.js';

export interface Requirement {
  name: ProjectName;
  /** PEP 440 specifiers joined by `,`; empty for any version. */
  specifier: string;
  extras: string[];
  marker?: EnvironmentMarker;
  /** sha256 digests (`--hash`) the chosen files must have; empty: any. */
  hashes: string[];
  /** Where it was written (`requirements.txt:3`, or `requests 2.31.0` for a dependency). */
  origin: string;
}

export interface LockedFile {
  filename: string;
  sha256: string | null;
}

export interface LockedPackage {
  name: ProjectName;
  version: string;
  marker?: EnvironmentMarker;
  /** The files the lock lists (its pins and hashes); null when it lists none (any file of the version). */
  files: LockedFile[] | null;
  origin: string;
}

export interface MirrorInputs {
  requirements: Requirement[];
  /** `-c` constraints: they narrow versions of projects something else requires, never add projects. */
  constraints: Requirement[];
  locked: LockedPackage[];
  /** Lines that were read but cannot be mirrored (URLs, editable installs), with why. */
  skipped: string[];
}

export class InputError extends Error {}

/** Parses one PEP 508 requirement; throws an InputError naming `origin`. URL requirements return null. */
export function parseRequirement(text: string, origin: string, hashes: string[] = []): Requirement | null {
  let parsed: ParsedLine | null;
  try {
    parsed = parsePipRequirementsLine(text);
  } catch (err) {
    throw new InputError(`${origin}: cannot parse '${text}': ${(err as Error).message.replace(/^Failed to parse requirements? (file|line)\. /, '')}`);
  }
  if (parsed?.type !== 'ProjectName') return null;
  return {
    name: normalizeName(parsed.name),
    specifier: (parsed.versionSpec ?? []).map((s) => `${s.operator}${s.version}`).join(','),
    extras: (parsed.extras ?? []).map((e) => normalizeName(e)),
    marker: parsed.environmentMarkerTree,
    hashes,
    origin,
  };
}

/** The marker tree of a bare PEP 508 marker string (as lock files write them). */
export function parseMarker(marker: string, origin: string): EnvironmentMarker | undefined {
  if (!marker.trim()) return undefined;
  return parseRequirement(`placeholder ; ${marker}`, origin)?.marker;
}

/** The file name at the end of a URL, decoded (`…/requests-2.31.0-py3-none-any.whl#sha256=…`). */
export function filenameOfUrl(url: string): string {
  const path = url.split(/[?#]/, 1)[0]!;
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
}
