/**
 * The `advisories` source: wraps the upstream part of the index and applies the imported advisories
 * (advisories.ts). Unlike the policy's holds (marked yanked), a blocked release is left off simple pages
 * (HTML and JSON) and JSON API documents altogether; its files answer 403 naming the advisory, cached or
 * not. A project blocked whole answers 403 naming the advisory. Private projects never reach it.
 */
import { LarderError } from '../base/errors.js';
import type { FileBody, FileVariant, ProjectPage, ProjectReleases, Sourced } from '../model/documents.js';
import { sourced } from '../model/documents.js';
import { versionFromFilename } from '../model/filenames.js';
import type { ProjectName } from '../model/names.js';
import type { HeldRelease, PolicyHolds } from './policy-source.js';
import type { Refusal } from './policy.js';
import type { PackageSource } from '../sources/package-source.js';
import { SourceDecorator } from '../sources/source-decorator.js';
import type { AdvisoryAudit } from './advisory-metrics.js';
import { type AdvisoryBlock, type Advisories, advisoryUrl } from './advisories.js';

export function advisoryError(block: AdvisoryBlock): LarderError {
  return new LarderError('blocked_by_advisory', block.message);
}

/** A block as the pages show policy holds. */
export function blockRefusal(block: AdvisoryBlock): Refusal {
  return { rule: 'advisory', message: block.message, advisory: { id: block.advisory.id, url: advisoryUrl(block.advisory.id) } };
}

interface Filtered<T> {
  stamp: string;
  value: T;
}

export class AdvisorySource extends SourceDecorator {
  private readonly pages = new WeakMap<ProjectPage, Filtered<ProjectPage>>();
  private readonly documents = new WeakMap<ProjectReleases, Filtered<ProjectReleases>>();

  constructor(
    inner: PackageSource,
    private readonly advisories: Advisories,
    private readonly audit: AdvisoryAudit,
  ) {
    super(inner);
  }

  /** Brings the advisories up to date; refuses a project blocked whole. False when nothing of it can be blocked. */
  private async check(name: ProjectName): Promise<boolean> {
    if (!this.advisories.blocking) return false;
    await this.advisories.refresh();
    if (!this.advisories.names(name)) return false;
    const block = this.advisories.projectBlock(name);
    if (block) {
      this.audit.blocked(block.reason, 'refused', name, null, block.advisory.id);
      throw advisoryError(block);
    }
    return true;
  }

  private blocked(name: ProjectName, version: string | null, action: 'hidden' | 'refused', filename?: string): AdvisoryBlock | null {
    if (version === null) return null;
    const block = this.advisories.releaseBlock(name, version);
    if (block) this.audit.blocked(block.reason, action, name, version, block.advisory.id, filename);
    return block;
  }

  private filtered<T extends object>(memo: WeakMap<T, Filtered<T>>, input: T, filter: () => T): T {
    const stamp = this.advisories.stamp();
    const known = memo.get(input);
    if (known?.stamp === stamp) return known.value;
    const value = filter();
    memo.set(input, { stamp, value });
    return value;
  }

  override async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    const applies = await this.check(name);
    const answer = await this.inner.getProject(name);
    const page = answer.value;
    if (!applies || !page) return answer;
    const value = this.filtered(this.pages, page, () => {
      const files = page.files.filter((f) => !this.blocked(name, f.version, 'hidden', f.filename));
      const versions = page.versions.filter((v) => !this.advisories.releaseBlock(name, v));
      return files.length === page.files.length && versions.length === page.versions.length ? page : { ...page, files, versions };
    });
    return sourced(value, answer.provenance);
  }

  override async getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    const applies = await this.check(name);
    const answer = await this.inner.getReleases(name, forVersion);
    const doc = answer.value;
    if (!applies || !doc) return answer;
    const value = this.filtered(this.documents, doc, () => {
      const releases = doc.releases.filter((r) => !this.blocked(name, r.version, 'hidden'));
      return releases.length === doc.releases.length ? doc : { ...doc, releases };
    });
    return sourced(value, answer.provenance);
  }

  override async openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    if (await this.check(name)) {
      const block = this.blocked(name, versionFromFilename(filename), 'refused', filename);
      if (block) throw advisoryError(block);
    }
    return this.inner.openFile(name, filename, variant);
  }

  /** What the advisories block of the project, as the pages show policy holds; nothing is counted. */
  async holds(name: ProjectName): Promise<PolicyHolds> {
    if (!this.advisories.blocking) return { project: null, releases: [] };
    await this.advisories.refresh();
    if (!this.advisories.names(name)) return { project: null, releases: [] };
    const project = this.advisories.projectBlock(name);
    if (project) return { project: blockRefusal(project), releases: [] };
    const { value: doc } = await this.inner.getReleases(name);
    const releases: HeldRelease[] = [];
    for (const release of doc?.releases ?? []) {
      const block = this.advisories.releaseBlock(name, release.version);
      if (block) releases.push({ version: release.version, refusal: blockRefusal(block) });
    }
    return { project: null, releases };
  }
}

/** The pages' view of both: a project refused by either, else the releases either holds back. */
export function combinedHolds(advisories: Pick<AdvisorySource, 'holds'>, policy: { holds(name: ProjectName): Promise<PolicyHolds> }) {
  return {
    async holds(name: ProjectName): Promise<PolicyHolds> {
      const blocked = await advisories.holds(name);
      if (blocked.project) return blocked;
      const held = await policy.holds(name);
      if (held.project) return held;
      const seen = new Set(blocked.releases.map((r) => r.version));
      return { project: null, releases: [...blocked.releases, ...held.releases.filter((r) => !seen.has(r.version))] };
    },
  };
}
