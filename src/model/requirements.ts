/**
 * The requirement lists of LARDER_DENY and LARDER_ALLOW: PEP 508 requirements (`evilpkg`, `requests<2.0`,
 * `urllib3>=1,<1.26.5`), whose name may also be a glob (`torch*`). Extras and markers are refused: a
 * policy is about projects and versions, not about how they are asked for.
 */
import * as pep440 from '@renovatebot/pep440';
import { normalizeName } from './names.js';

export interface Requirement {
  /** As written, for messages. */
  text: string;
  /** Matches a normalized project name. */
  name: RegExp;
  /** A PEP 440 specifier set, or null for every version. */
  specifier: string | null;
}

const REQUIREMENT = /^([A-Za-z0-9*?][A-Za-z0-9._*?-]*)\s*(?:\(\s*([^)]*)\)|([<>=!~][^;[]*))?$/;

/** A name or glob as a pattern over normalized names (`*` any run, `?` one character). */
export function namePattern(glob: string): RegExp {
  const normalized = normalizeName(glob);
  const body = normalized
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** `example` is what the error message shows a valid requirement to look like. */
export function parseRequirement(text: string, example = 'evilpkg or requests<2.0'): Requirement {
  const trimmed = text.trim();
  const match = REQUIREMENT.exec(trimmed);
  const specifier = (match?.[2] ?? match?.[3] ?? '').trim() || null;
  if (!match || (specifier !== null && !pep440.validRange(specifier))) {
    throw new Error(`'${trimmed}' is not a requirement such as ${example}`);
  }
  return { text: trimmed, name: namePattern(match[1]!), specifier };
}

/**
 * A comma-separated list (or an array) of requirements. A comma also separates the clauses of one
 * specifier set, so a piece that starts with an operator continues the requirement before it.
 */
export function parseRequirementList(raw: string | readonly string[]): Requirement[] {
  const pieces = typeof raw === 'string' ? raw.split(',') : raw.flatMap((item) => item.split(','));
  const joined: string[] = [];
  for (const piece of pieces.map((p) => p.trim()).filter(Boolean)) {
    if (/^[<>=!~]/.test(piece) && joined.length) joined[joined.length - 1] += `,${piece}`;
    else joined.push(piece);
  }
  return joined.map((piece) => parseRequirement(piece));
}

/** Whether the requirement names the project at all (whatever the version). */
export function namesProject(req: Requirement, project: string): boolean {
  return req.name.test(project);
}

/** Whether the requirement covers every release of the project (no specifier). */
export function coversProject(req: Requirement, project: string): boolean {
  return req.specifier === null && req.name.test(project);
}

/**
 * Whether the release `version` of `project` matches. Pre-releases match a specifier that admits them;
 * a version that is not PEP 440 matches only a requirement without a specifier.
 */
export function matchesRelease(req: Requirement, project: string, version: string | null): boolean {
  if (!req.name.test(project)) return false;
  if (req.specifier === null) return true;
  if (version === null || pep440.valid(version) === null) return false;
  return pep440.satisfies(version, req.specifier, { prereleases: true });
}
