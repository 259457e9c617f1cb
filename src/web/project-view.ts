/**
 * Gathers what a project page shows: the releases from the package source, the description, who may manage
 * it, and what the supply-chain policy holds back of an upstream project.
 */
import { mayOwn } from '../auth/authenticator.js';
import type { Identity } from '../auth/authenticator.js';
import type { ProjectReleases, Release } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';
import { findRelease, latestParsedRelease, parsedReleases } from '../model/release-choice.js';
import { canonicalVersion, OrderedVersion } from '../model/versions.js';
import type { PackageSource } from '../sources/package-source.js';
import type { Refusal } from '../policy/policy.js';
import type { HeldRelease, PolicyHolds } from '../policy/policy-source.js';
import type { IndexReads } from '../store/index-store.js';
import type { PublisherStamp } from '../store/records.js';
import type { Descriptions } from './descriptions.js';
import type { ProjectView } from './render/project.js';

/** What the pages ask of the policy (the upstream's policy source). */
export interface PolicyHoldsSource {
  holds(name: ProjectName): Promise<PolicyHolds>;
}

const NO_HOLDS: PolicyHolds = { project: null, releases: [] };

export type ProjectLookup =
  | { found: 'none' }
  /** The policy refuses the whole upstream project. */
  | { found: 'refused'; refusal: Refusal }
  /** The version asked for, or every release, is held back by the policy. */
  | { found: 'held'; displayName: string; version: string | null; held: HeldRelease[]; offered: boolean }
  /** The version asked for is another spelling of this one (`1.0.0` for `1.0`). */
  | { found: 'other-spelling'; version: string }
  | { found: 'page'; view: Omit<ProjectView, 'installLine' | 'notice'> };

function heldOne(held: readonly HeldRelease[], version: string): HeldRelease | undefined {
  const canonical = canonicalVersion(version);
  return held.find((h) => h.version === version) ?? held.find((h) => canonicalVersion(h.version) === canonical);
}

/** Newest first, then versions that are not PEP 440 (a sorted copy). */
function newestFirst<T extends { version: OrderedVersion }>(items: readonly T[]): T[] {
  return [...items].sort(({ version: a }, { version: b }) => {
    if (a.valid && b.valid) return b.compare(a);
    return a.valid === b.valid ? b.version.localeCompare(a.version) : a.valid ? -1 : 1;
  });
}

function heldNewestFirst(held: readonly HeldRelease[]): HeldRelease[] {
  return newestFirst(held.map((release) => ({ release, version: new OrderedVersion(release.version) }))).map(({ release }) => release);
}

export class ProjectViews {
  /**
   * Each document's releases newest first, and its latest: both cost PEP 440 comparisons (a sort of
   * 20,000 versions takes a while), and a document is reused while its page is unchanged.
   */
  private readonly ordered = new WeakMap<ProjectReleases, { newestFirst: Release[]; latest: Release | null }>();

  constructor(
    private readonly source: PackageSource,
    private readonly meta: IndexReads,
    private readonly mergeAllowList: ReadonlySet<string>,
    private readonly policy: PolicyHoldsSource | null,
    private readonly descriptions: Pick<Descriptions, 'html'>,
  ) {}

  async lookup(name: ProjectName, version: string | null, viewer: Identity | null): Promise<ProjectLookup> {
    const record = await this.meta.getProject(name);
    const origin = record ? (this.mergeAllowList.has(name) ? 'merged' : 'private') : 'upstream';
    // The policy applies to upstream projects only.
    const found = origin === 'private' || !this.policy ? NO_HOLDS : await this.policy.holds(name);
    const holds = { ...found, releases: heldNewestFirst(found.releases) };
    if (holds.project && origin === 'upstream') return { found: 'refused', refusal: holds.project };
    const { value: releases } = await this.source.getReleases(name, version ?? undefined);
    const offered = releases?.releases ?? [];
    const release = version === null ? releases && this.order(releases).latest : findRelease(offered, version);
    if (!releases || !release) {
      const asked = version === null ? undefined : heldOne(holds.releases, version);
      if (version === null ? holds.releases.length === 0 : !asked) return { found: 'none' };
      if (asked && asked.version !== version) return { found: 'other-spelling', version: asked.version };
      return { found: 'held', displayName: releases?.displayName ?? name, version, held: holds.releases, offered: offered.length > 0 };
    }
    if (version !== null && release.version !== version) return { found: 'other-spelling', version: release.version };
    const descriptionHtml = await this.descriptions.html(release.metadata.description, release.metadata.description_content_type);
    return {
      found: 'page',
      view: {
        name,
        displayName: releases.displayName,
        origin,
        releases: this.order(releases).newestFirst,
        release,
        latest: version === null,
        descriptionHtml,
        canManage: viewer !== null && record !== undefined && mayOwn(viewer, name, record),
        held: holds.releases,
        ...(releases.status ? { status: releases.status } : {}),
        publishers: origin === 'upstream' ? [] : await this.publishersOf(name, release),
      },
    };
  }

  /** The distinct trusted publishers of the release's private files. */
  private async publishersOf(name: ProjectName, release: Release): Promise<PublisherStamp[]> {
    const filenames = new Set(release.files.map((f) => f.filename));
    const seen = new Map<string, PublisherStamp>();
    for (const file of await this.meta.getFiles(name)) {
      if (!file.publisher || !filenames.has(file.filename)) continue;
      seen.set(JSON.stringify(file.publisher), file.publisher);
    }
    return [...seen.values()];
  }

  private order(doc: ProjectReleases): { newestFirst: Release[]; latest: Release | null } {
    let order = this.ordered.get(doc);
    if (!order) {
      const parsed = parsedReleases(doc.releases);
      order = { newestFirst: newestFirst(parsed).map(({ release }) => release), latest: latestParsedRelease(parsed) };
      this.ordered.set(doc, order);
    }
    return order;
  }
}
