/**
 * The `router` source: several upstreams, one per project. A project matching an upstream's `projects`
 * patterns comes only from that upstream; any other project from the first upstream without patterns
 * that has it. Never merged across upstreams (dependency confusion); an upstream that fails is an error,
 * not a reason to ask the next one. The project list is every upstream's, each name from the upstream
 * that would serve it.
 */
import type { FileBody, FileVariant, ProjectListBatch, ProjectPage, ProjectReleases, SourceTrace } from '../model/documents.js';
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

  /** The upstream that serves the project (asking each candidate in order when there are several), and its page. */
  private async choose(name: ProjectName, trace?: SourceTrace): Promise<{ upstream: RoutedUpstream; page: ProjectPage | null } | null> {
    const candidates = this.candidates(name);
    if (candidates.length === 1) return { upstream: candidates[0]!, page: null };
    for (const upstream of candidates) {
      const page = await upstream.source.getProject(name, trace);
      if (page) return { upstream, page };
    }
    return null;
  }

  private mark(trace: SourceTrace | undefined, upstream: RoutedUpstream, kind: AnswerKind): void {
    if (trace) trace.upstream = upstream.name;
    this.answered(upstream.name, kind);
  }

  async getProject(name: ProjectName, trace?: SourceTrace): Promise<ProjectPage | null> {
    const chosen = await this.choose(name, trace);
    if (!chosen) return null;
    const page = chosen.page ?? (await chosen.upstream.source.getProject(name, trace));
    if (page) this.mark(trace, chosen.upstream, 'page');
    return page;
  }

  async getReleases(name: ProjectName, trace?: SourceTrace, forVersion?: string): Promise<ProjectReleases | null> {
    const chosen = await this.choose(name);
    if (!chosen) return null;
    const doc = await chosen.upstream.source.getReleases(name, trace, forVersion);
    if (doc) this.mark(trace, chosen.upstream, 'releases');
    return doc;
  }

  async openFile(name: ProjectName, filename: string, variant: FileVariant, trace?: SourceTrace): Promise<FileBody | null> {
    const chosen = await this.choose(name);
    if (!chosen) return null;
    const body = await chosen.upstream.source.openFile(name, filename, variant, trace);
    if (body) this.mark(trace, chosen.upstream, 'file');
    return body;
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
