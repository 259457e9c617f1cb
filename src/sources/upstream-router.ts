/**
 * The `router` source: several upstreams, one per project. A project matching an upstream's `projects`
 * patterns comes only from that upstream; any other project from the first upstream without patterns
 * that has it. Never merged across upstreams (dependency confusion); an upstream that fails is an error,
 * not a reason to ask the next one. The project list is every upstream's, each name from the upstream
 * that would serve it.
 */
import { type FileBody, type FileVariant, type ProjectListBatch, type ProjectPage, type ProjectReleases, type Sourced, sourced } from '../model/documents.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import type { PackageSource } from './package-source.js';

export interface RoutedUpstream {
  name: string;
  /** Its chain: cached, with JSON API documents completed. */
  source: PackageSource;
  /** The cached page, without asking the upstream. */
  cachedPage(name: ProjectName): ProjectPage | null;
  /** Patterns over normalized names of the projects only it serves; null = any project it has. */
  patterns: RegExp[] | null;
}

export type AnswerKind = 'page' | 'releases' | 'file';

export class UpstreamRouter implements PackageSource {
  private readonly open: RoutedUpstream[];

  constructor(
    private readonly upstreams: readonly RoutedUpstream[],
    private readonly answered: (upstream: string, kind: AnswerKind) => void = () => {},
  ) {
    this.open = upstreams.filter((u) => u.patterns === null);
  }

  /** The upstreams that may serve the project, in order. */
  candidates(name: string): RoutedUpstream[] {
    const routed = this.upstreams.find((u) => u.patterns?.some((p) => p.test(name)));
    return routed ? [routed] : this.open;
  }

  /**
   * The upstream that serves the project (asking each candidate in order when there are several), and its
   * page; else the last answer (not found), whose provenance says how it was found missing.
   */
  private async choose(name: ProjectName): Promise<{ upstream: RoutedUpstream; page: Sourced<ProjectPage> | null } | Sourced<null>> {
    const candidates = this.candidates(name);
    if (candidates.length === 1) return { upstream: candidates[0]!, page: null };
    let missing = sourced(null);
    for (const upstream of candidates) {
      const page = await upstream.source.getProject(name);
      if (page.value) return { upstream, page: page as Sourced<ProjectPage> };
      missing = sourced(null, page.provenance);
    }
    return missing;
  }

  /** The answer of the upstream that gave it, with that upstream's name when it has the thing asked for. */
  private mark<T>(answer: Sourced<T | null>, upstream: RoutedUpstream, kind: AnswerKind): Sourced<T | null> {
    if (answer.value === null) return answer;
    this.answered(upstream.name, kind);
    return sourced(answer.value, { ...answer.provenance, upstream: upstream.name });
  }

  async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    const chosen = await this.choose(name);
    if (!('upstream' in chosen)) return chosen;
    return this.mark(chosen.page ?? (await chosen.upstream.source.getProject(name)), chosen.upstream, 'page');
  }

  async getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    const chosen = await this.choose(name);
    if (!('upstream' in chosen)) return sourced(null);
    return this.mark(await chosen.upstream.source.getReleases(name, forVersion), chosen.upstream, 'releases');
  }

  async openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    const chosen = await this.choose(name);
    if (!('upstream' in chosen)) return sourced(null);
    return this.mark(await chosen.upstream.source.openFile(name, filename, variant), chosen.upstream, 'file');
  }

  /** For the upload side's name check: the first candidate's cached page. */
  cachedPage(name: ProjectName): ProjectPage | null {
    for (const upstream of this.candidates(name)) {
      const page = upstream.cachedPage(name);
      if (page) return page;
    }
    return null;
  }

  async *listProjects(): AsyncIterable<ProjectListBatch> {
    if (this.upstreams.length === 1) return yield* this.upstreams[0]!.source.listProjects();
    const seen = new Set<string>();
    for (const upstream of this.upstreams) {
      for await (const batch of upstream.source.listProjects()) {
        yield batch.filter((entry) => {
          const name = entry.normalized ?? normalizeName(entry.name);
          if (seen.has(name) || !this.candidates(name).includes(upstream)) return false;
          seen.add(name);
          return true;
        });
      }
    }
  }

  async listVersion(): Promise<string> {
    const versions = await Promise.all(this.upstreams.map((u) => u.source.listVersion()));
    return versions.join(' ');
  }

  async lastSerial(): Promise<number> {
    const serials = await Promise.all(this.upstreams.map((u) => u.source.lastSerial().catch(() => 0)));
    return Math.max(0, ...serials);
  }
}
