/**
 * The closure of a mirror set: for every target, the versions its requirements need (newest, or all
 * with `versions: 'all'`), their `Requires-Dist` with markers evaluated for the target and extras
 * followed, until nothing new; plus the locked packages as they are. The result is the set of files to
 * mirror, which targets need each, and what could not be satisfied and why.
 */
import type { FileEntry, ProjectPage } from '../model/documents.js';
import { parseWheelFilename } from '../model/filenames.js';
import type { ProjectName } from '../model/names.js';
import { isExactPin, satisfying, usableFiles } from './candidates.js';
import { markerHolds } from './markers.js';
import { InputError, parseRequirement, type LockedPackage, type MirrorInputs, type Requirement } from './requirement.js';
import { markerEnvironment, platformSys, targetLabel, type MarkerEnvironment, type Target } from './target.js';

/** What the closure reads: project pages and the dependencies a file declares. */
export interface MirrorIndex {
  page(name: ProjectName): Promise<ProjectPage | null>;
  /** The `Requires-Dist` of a file (from its `.metadata`, or the wheel's METADATA); null when it cannot be known. */
  requiresDist(name: ProjectName, file: FileEntry): Promise<string[] | null>;
}

export interface ClosureOptions {
  targets: Target[];
  sdists: boolean;
  versions: 'newest' | 'all';
}

export interface PlannedFile {
  project: ProjectName;
  file: FileEntry;
  /** Labels of the targets that need it. */
  targets: Set<string>;
}

export interface Problem {
  /** The target's label, or null for all. */
  target: string | null;
  project: string;
  reason: string;
}

export interface ClosureResult {
  files: Map<string, PlannedFile>;
  problems: Problem[];
  /** What was left out on purpose, with why (shown as `skipped:` lines). */
  skipped: string[];
  /** Projects per target label. */
  projects: Map<string, Set<ProjectName>>;
}

/** Rounds of re-choosing versions before a set whose choices keep changing is called a conflict. */
const MAX_ROUNDS = 25;

interface Demand {
  specifiers: string[];
  extras: Set<string>;
  hashes: Set<string>;
  origins: string[];
}

class TargetWalk {
  private readonly env: MarkerEnvironment;
  private readonly label: string;

  constructor(
    private readonly index: MirrorIndex,
    private readonly target: Target,
    private readonly options: ClosureOptions,
    private readonly constraints: Map<ProjectName, string[]>,
    private readonly result: ClosureResult,
  ) {
    this.env = markerEnvironment(target);
    this.label = targetLabel(target);
  }

  private problem(project: string, reason: string): void {
    this.result.problems.push({ target: this.label, project, reason });
  }

  /** The page, null when the index does not know the project, undefined (a problem recorded) when it could not be read. */
  async page(name: ProjectName): Promise<ProjectPage | null | undefined> {
    try {
      return await this.index.page(name);
    } catch (err) {
      this.problem(name, `upstream error: ${(err as Error).message}`);
      return undefined;
    }
  }

  private take(project: ProjectName, files: FileEntry[]): void {
    this.result.projects.get(this.label)!.add(project);
    for (const file of files) {
      const key = `${project}/${file.filename}`;
      const planned = this.result.files.get(key) ?? { project, file, targets: new Set<string>() };
      planned.targets.add(this.label);
      this.result.files.set(key, planned);
    }
  }

  async lockedPackage(pkg: LockedPackage): Promise<void> {
    if (pkg.marker && !markerHolds(pkg.marker, this.env)) return;
    const page = await this.page(pkg.name);
    if (page === undefined) return;
    if (!page) return this.problem(pkg.name, `not on the index (${pkg.origin})`);
    const usable = usableFiles(page, this.target, this.options, () => true).get(pkg.version) ?? [];
    let files = usable;
    if (pkg.files) {
      const locked = new Map(pkg.files.map((f) => [f.filename, f.sha256]));
      files = usable.filter((f) => locked.has(f.filename));
      for (const f of files) {
        const sha = locked.get(f.filename);
        if (sha && f.hashes.sha256 && sha !== f.hashes.sha256)
          return this.problem(pkg.name, `${f.filename}: the lock's sha256 ${sha} differs from the index's ${f.hashes.sha256}`);
      }
    }
    if (files.length === 0 && this.onlyForOtherSystems(page, pkg.version)) {
      // Older lock formats (poetry 1.x, pdm 2.2) keep no markers: a Windows-only package such as pywin32 is
      // locked for every platform. Wheels for other operating systems alone say this target does not need it.
      this.result.skipped.push(
        `${this.label}: ${pkg.name} ${pkg.version} (${pkg.origin}) has wheels only for other operating systems; not mirrored for this target`,
      );
      return;
    }
    if (files.length === 0) {
      const why =
        page.versions.includes(pkg.version) || page.files.some((f) => f.version === pkg.version)
          ? 'has no file compatible with this target'
          : 'is not on the index';
      return this.problem(pkg.name, `${pkg.version} ${why} (${pkg.origin})`);
    }
    this.take(pkg.name, files);
  }

  /** True when every file of the version is a wheel built only for operating systems other than the target's. */
  private onlyForOtherSystems(page: ProjectPage, version: string): boolean {
    const own = platformSys(this.target.platform);
    const files = page.files.filter((f) => f.version === version);
    if (files.length === 0) return false;
    const otherSystem = (tag: string) => {
      const sys = platformSys(tag);
      return sys !== null && sys !== own;
    };
    return files.every((f) => parseWheelFilename(f.filename)?.platformTags.every(otherSystem) ?? false);
  }

  /** The versions to take for one demand; records a problem and returns [] when there are none. */
  private async choose(name: ProjectName, demand: Demand, previous: string | undefined): Promise<{ version: string; files: FileEntry[] }[]> {
    const page = await this.page(name);
    if (page === undefined) return [];
    if (!page) {
      this.problem(name, `not on the index (required by ${demand.origins.slice(0, 3).join(', ')})`);
      return [];
    }
    const specifiers = [...demand.specifiers, ...(this.constraints.get(name) ?? [])];
    const pinnedYanked = (v: string) => specifiers.some((s) => isExactPin(s, v));
    let usable = usableFiles(page, this.target, this.options, pinnedYanked);
    if (demand.hashes.size) {
      usable = new Map([...usable].map(([v, fs]) => [v, fs.filter((f) => f.hashes.sha256 !== undefined && demand.hashes.has(f.hashes.sha256))]));
      usable = new Map([...usable].filter(([, fs]) => fs.length > 0));
    }
    const versions = satisfying([...usable.keys()], specifiers);
    if (versions.length === 0) {
      const any = satisfying(
        page.files.map((f) => f.version).filter((v): v is string => v !== null),
        specifiers,
      );
      const spec = specifiers.filter(Boolean).join(',') || 'any version';
      this.problem(
        name,
        any.length
          ? `no file of ${spec} is compatible with this target${demand.hashes.size ? ' and has one of the required hashes' : ''} (required by ${demand.origins.slice(0, 3).join(', ')})`
          : `version conflict: nothing satisfies ${spec} (required by ${demand.origins.slice(0, 3).join(', ')})`,
      );
      return [];
    }
    const chosen = this.options.versions === 'all' ? versions : [previous !== undefined && versions.includes(previous) ? previous : versions[0]!];
    return chosen.map((version) => ({ version, files: usable.get(version)! }));
  }

  private async dependencies(name: ProjectName, version: string, files: FileEntry[], extras: Set<string>): Promise<Requirement[]> {
    const withMetadata =
      files.find((f) => f.filename.endsWith('.whl') && f.coreMetadata !== false) ??
      files.find((f) => f.filename.endsWith('.whl')) ??
      files.find((f) => f.coreMetadata !== false);
    let lines: string[] | null = null;
    try {
      lines = withMetadata ? await this.index.requiresDist(name, withMetadata) : null;
    } catch (err) {
      this.problem(name, `${version}: its core metadata could not be read: ${(err as Error).message}`);
      return [];
    }
    if (lines === null) {
      this.problem(name, `${version}: its dependencies cannot be read (no core metadata and no wheel); they are not mirrored`);
      return [];
    }
    const out: Requirement[] = [];
    for (const line of lines) {
      try {
        const r = parseRequirement(line, `${name} ${version}`);
        if (r && markerHolds(r.marker, this.env, extras)) out.push(r);
      } catch (err) {
        this.problem(name, `${version}: ${err instanceof InputError ? err.message : String(err)}`);
      }
    }
    return out;
  }

  /** Walks the requirements until the chosen versions stop changing. */
  async requirements(roots: Requirement[]): Promise<void> {
    let previous = new Map<ProjectName, string>();
    const problemsBefore = this.result.problems.length;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      this.result.problems.length = problemsBefore;
      const demands = new Map<ProjectName, Demand>();
      const done = new Set<string>();
      const chosen = new Map<ProjectName, string>();
      const picked: { name: ProjectName; version: string; files: FileEntry[] }[] = [];
      const queue = roots.filter((r) => markerHolds(r.marker, this.env, []));
      while (queue.length) {
        const req = queue.shift()!;
        const d = demands.get(req.name) ?? { specifiers: [], extras: new Set<string>(), hashes: new Set<string>(), origins: [] };
        demands.set(req.name, d);
        if (req.specifier) d.specifiers.push(req.specifier);
        for (const e of req.extras) d.extras.add(e);
        for (const h of req.hashes) d.hashes.add(h);
        d.origins.push(req.origin);
        for (const { version, files } of await this.choose(req.name, d, previous.get(req.name) ?? chosen.get(req.name))) {
          const key = `${req.name}\u0000${version}\u0000${[...d.extras].sort().join(',')}`;
          if (done.has(key)) continue;
          done.add(key);
          chosen.set(req.name, version);
          picked.push({ name: req.name, version, files });
          queue.push(...(await this.dependencies(req.name, version, files, d.extras)));
        }
      }
      const stable = chosen.size === previous.size && [...chosen].every(([n, v]) => previous.get(n) === v);
      if (stable || this.options.versions === 'all') {
        for (const p of picked) if (this.options.versions === 'all' || chosen.get(p.name) === p.version) this.take(p.name, p.files);
        return;
      }
      previous = chosen;
    }
    this.problem('(set)', `version conflict: the chosen versions still changed after ${MAX_ROUNDS} rounds`);
  }
}

export async function computeClosure(index: MirrorIndex, inputs: MirrorInputs, options: ClosureOptions): Promise<ClosureResult> {
  const result: ClosureResult = { files: new Map(), problems: [], skipped: [], projects: new Map() };
  const constraints = new Map<ProjectName, string[]>();
  for (const c of inputs.constraints) if (c.specifier) constraints.set(c.name, [...(constraints.get(c.name) ?? []), c.specifier]);
  for (const target of options.targets) {
    result.projects.set(targetLabel(target), new Set());
    const walk = new TargetWalk(index, target, options, constraints, result);
    for (const pkg of inputs.locked) await walk.lockedPackage(pkg);
    await walk.requirements(inputs.requirements);
  }
  return result;
}
