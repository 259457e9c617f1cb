/** PEP 440 versions, through @renovatebot/pep440. */
import * as pep440 from '@renovatebot/pep440';

/** What pep440.parse gives (its typings say otherwise). */
interface ParsedVersion {
  epoch: number;
  release: number[];
  pre: [string, number] | null;
  post: [string, number] | null;
  dev: [string, number] | null;
  local: (string | number)[] | null;
}

/** A release segment alone (`1.0.12`), which pep440.parse reads as below; most versions are one. */
const PLAIN_RELEASE = /^[0-9]+(?:\.[0-9]+)*$/;

/** pep440.parse, without its long pattern for a plain release; null exactly where pep440.valid is. */
function parseVersion(version: string): ParsedVersion | null {
  if (PLAIN_RELEASE.test(version)) return { epoch: 0, release: version.split('.').map(Number), pre: null, post: null, dev: null, local: null };
  return pep440.parse(version) as unknown as ParsedVersion | null;
}

export function isValidVersion(version: string): boolean {
  return PLAIN_RELEASE.test(version) || pep440.valid(version) !== null;
}

export function isLocalVersion(version: string): boolean {
  const parsed = pep440.explain(version);
  return parsed !== null && parsed.local !== null && parsed.local !== undefined;
}

export function isPrerelease(version: string): boolean {
  const parsed = pep440.explain(version);
  return parsed !== null && (parsed.is_prerelease || parsed.is_devrelease);
}

/**
 * `str(packaging.version.Version(v))`, or null when `v` is not PEP 440. (pep440's own `clean` writes
 * local segments with commas, so the string is built from the parsed parts.)
 */
export function pep440String(version: string, dropTrailingZeros = false): string | null {
  const v = parseVersion(version);
  if (!v) return null;
  const release = [...v.release];
  if (dropTrailingZeros) while (release.length > 1 && release[release.length - 1] === 0) release.pop();
  let out = v.epoch ? `${v.epoch}!` : '';
  out += release.join('.');
  if (v.pre) out += `${v.pre[0]}${v.pre[1]}`;
  if (v.post) out += `.post${v.post[1]}`;
  if (v.dev) out += `.dev${v.dev[1]}`;
  if (v.local) out += `+${v.local.join('.')}`;
  return out;
}

/** Canonical form as `packaging.utils.canonicalize_version`: normalized, trailing `.0`s of the release dropped. */
export function canonicalVersion(version: string): string {
  return pep440String(version, true) ?? version;
}

/** Normalized string form; the input unchanged if it is not PEP 440. */
export function normalizeVersion(version: string): string {
  return pep440String(version) ?? version;
}

/** Sorts ascending by PEP 440; versions that do not parse sort first, by string. */
export function compareVersions(a: string, b: string): number {
  const va = pep440.valid(a) !== null;
  const vb = pep440.valid(b) !== null;
  if (va && vb) return pep440.compare(a, b);
  if (va) return 1;
  if (vb) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A parsed version as pep440 orders it (packaging's `_cmpkey`), in numbers where it can be. */
interface OrderKey {
  epoch: number;
  /** Without trailing zeros. */
  release: number[];
  /** -Infinity: a dev release with no pre or post part; 0, 1, 2: a, b, rc; Infinity: none. */
  pre: number;
  preNumber: number;
  post: number;
  dev: number;
  /** Numeric parts as [n, ''], others as [-Infinity, part]; null when there is no local part. */
  local: [number, string][] | null;
  /** A pre- or dev release (isPrerelease). */
  prerelease: boolean;
}

const PRE_LETTERS: Readonly<Record<string, number>> = { a: 0, b: 1, rc: 2 };

/** A version parsed once, to be compared many times: compareVersions, isValidVersion and isPrerelease without parsing again. */
export class OrderedVersion {
  readonly #key: OrderKey | null;

  constructor(readonly version: string) {
    this.#key = orderKey(version);
  }

  get valid(): boolean {
    return this.#key !== null;
  }

  get prerelease(): boolean {
    return this.#key?.prerelease ?? false;
  }

  /** compareVersions(this.version, other.version). */
  compare(other: OrderedVersion): number {
    return compareKeyed(this.version, this.#key, other.version, other.#key);
  }
}

/**
 * Distinct versions, each parsed once as it is added, listed in compareVersions' order. compareVersions
 * parses both sides on every comparison, which makes sorting a few thousand versions take seconds.
 */
export class VersionSet {
  readonly #ordered = new Map<string, OrderedVersion>();

  get size(): number {
    return this.#ordered.size;
  }

  add(version: string): this {
    if (!this.#ordered.has(version)) this.#ordered.set(version, new OrderedVersion(version));
    return this;
  }

  has(version: string): boolean {
    return this.#ordered.has(version);
  }

  sorted(): string[] {
    const ordered = [...this.#ordered.values()];
    ordered.sort((a, b) => a.compare(b));
    return ordered.map((each) => each.version);
  }
}

function compareKeyed(a: string, ka: OrderKey | null, b: string, kb: OrderKey | null): number {
  if (ka !== null && kb !== null) return compareKeys(ka, kb);
  if (ka !== null) return 1;
  if (kb !== null) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The versions in compareVersions' order (each once). */
export function sortVersions(versions: Iterable<string>): string[] {
  const set = new VersionSet();
  for (const version of versions) set.add(version);
  return set.sorted();
}

/** Null when `version` is not PEP 440 (parse() is null exactly where valid() is). */
function orderKey(version: string): OrderKey | null {
  const v = parseVersion(version);
  if (!v) return null;
  const release = [...v.release];
  while (release.length > 0 && release[release.length - 1] === 0) release.pop();
  const pre = v.pre ? PRE_LETTERS[v.pre[0]]! : !v.post && v.dev ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  const parts = v.local;
  return {
    epoch: v.epoch,
    release,
    pre,
    preNumber: v.pre ? Number(v.pre[1]) : 0,
    post: v.post ? Number(v.post[1]) : Number.NEGATIVE_INFINITY,
    dev: v.dev ? Number(v.dev[1]) : Number.POSITIVE_INFINITY,
    local: parts ? parts.map((part) => (Number.isNaN(Number(part)) ? [Number.NEGATIVE_INFINITY, String(part)] : [Number(part), ''])) : null,
    prerelease: Boolean(v.pre || v.dev),
  };
}

const compareNumbers = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0);

function compareKeys(a: OrderKey, b: OrderKey): number {
  if (a.epoch !== b.epoch) return compareNumbers(a.epoch, b.epoch);
  const length = Math.min(a.release.length, b.release.length);
  for (let i = 0; i < length; i++) if (a.release[i] !== b.release[i]) return compareNumbers(a.release[i]!, b.release[i]!);
  if (a.release.length !== b.release.length) return a.release.length - b.release.length;
  if (a.pre !== b.pre) return compareNumbers(a.pre, b.pre);
  if (a.preNumber !== b.preNumber) return compareNumbers(a.preNumber, b.preNumber);
  if (a.post !== b.post) return compareNumbers(a.post, b.post);
  if (a.dev !== b.dev) return compareNumbers(a.dev, b.dev);
  if (a.local === null || b.local === null) return a.local === b.local ? 0 : a.local === null ? -1 : 1;
  const parts = Math.min(a.local.length, b.local.length);
  for (let i = 0; i < parts; i++) {
    const [an, as] = a.local[i]!;
    const [bn, bs] = b.local[i]!;
    if (an !== bn) return compareNumbers(an, bn);
    if (as !== bs) return as < bs ? -1 : 1;
  }
  return a.local.length - b.local.length;
}
