/**
 * Gathers what a project page shows: the releases from the index source, the description, who may manage
 * it, and what the supply-chain policy holds back of an upstream project.
 */
import { LRUCache } from 'lru-cache';
import { mayOwn } from '../auth/authenticator.js';
import type { Identity } from '../auth/authenticator.js';
import type { ProjectName } from '../model/names.js';
import { findRelease, latestRelease } from '../model/release-choice.js';
import { canonicalVersion, compareVersions, isValidVersion } from '../model/versions.js';
import type { IndexSource } from '../index/source.js';
import type { Refusal } from '../policy/policy.js';
import type { HeldRelease, PolicyHolds } from '../policy/policy-source.js';
import type { IndexReads } from '../store/index-store.js';
import { DescriptionRenderer } from './description.js';
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

function newestFirst(a: { version: string }, b: { version: string }): number {
  const av = isValidVersion(a.version);
  const bv = isValidVersion(b.version);
  if (av && bv) return compareVersions(b.version, a.version);
  return av === bv ? b.version.localeCompare(a.version) : av ? -1 : 1;
}

export class ProjectViews {
  private readonly descriptions = new DescriptionRenderer();
  /** Rendered descriptions by project, version and serial: Markdown of a long README takes milliseconds. */
  private readonly rendered = new LRUCache<string, string>({ max: 500 });

  constructor(
    private readonly source: IndexSource,
    private readonly meta: IndexReads,
    private readonly mergeAllowList: ReadonlySet<string>,
    private readonly policy: PolicyHoldsSource | null,
  ) {}

  async lookup(name: ProjectName, version: string | null, viewer: Identity | null): Promise<ProjectLookup> {
    const record = this.meta.getProject(name);
    const origin = record ? (this.mergeAllowList.has(name) ? 'merged' : 'private') : 'upstream';
    // The policy applies to upstream projects only.
    const found = origin === 'private' || !this.policy ? NO_HOLDS : await this.policy.holds(name);
    const holds = { ...found, releases: [...found.releases].sort(newestFirst) };
    if (holds.project && origin === 'upstream') return { found: 'refused', refusal: holds.project };
    const releases = await this.source.getReleases(name, undefined, version ?? undefined);
    const offered = releases?.releases ?? [];
    const release = version === null ? latestRelease(offered) : findRelease(offered, version);
    if (!releases || !release) {
      const asked = version === null ? undefined : heldOne(holds.releases, version);
      if (version === null ? holds.releases.length === 0 : !asked) return { found: 'none' };
      if (asked && asked.version !== version) return { found: 'other-spelling', version: asked.version };
      return { found: 'held', displayName: releases?.displayName ?? name, version, held: holds.releases, offered: offered.length > 0 };
    }
    if (version !== null && release.version !== version) return { found: 'other-spelling', version: release.version };
    const key = `${name}\0${release.version}\0${releases.serial}`;
    let descriptionHtml = this.rendered.get(key);
    if (descriptionHtml === undefined) {
      descriptionHtml = this.descriptions.render(release.metadata.description, release.metadata.description_content_type);
      this.rendered.set(key, descriptionHtml);
    }
    return {
      found: 'page',
      view: {
        name,
        displayName: releases.displayName,
        origin,
        releases: [...releases.releases].sort(newestFirst),
        release,
        latest: version === null,
        descriptionHtml,
        canManage: viewer !== null && record !== undefined && mayOwn(viewer, name, record),
        held: holds.releases,
      },
    };
  }
}
