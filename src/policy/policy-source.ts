/**
 * The `policy` source: wraps the upstream part of the index and applies the supply-chain policy
 * (policy.ts). Refused projects answer 403 (deny) or 404 (allow list) with the reason. Files it refuses
 * stay on simple pages marked yanked (PEP 592) with the reason, so that installers skip them unless a
 * version is pinned, and pip then prints the reason; they are left off JSON API documents. Their
 * downloads answer 403 with the reason and, under the cooldown, when the file becomes available.
 * `holds` and `explain` say what is held back and why, for the project pages and `larder policy explain`.
 * Private projects never reach it.
 */
import type { ErrorCode } from '../base/error-catalogue.js';
import { LarderError } from '../base/errors.js';
import {
  type FileBody,
  type FileEntry,
  type FileVariant,
  type ProjectListBatch,
  type ProjectPage,
  type ProjectReleases,
  type Sourced,
  sourced,
} from '../model/documents.js';
import { PageFiles } from '../model/page-files.js';
import { findRelease } from '../model/release-choice.js';
import { versionFromFilename } from '../model/filenames.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import type { PackageSource } from '../sources/package-source.js';
import { SourceDecorator } from '../sources/source-decorator.js';
import type { PolicyAudit } from './policy-metrics.js';
import type { ExemptionRecord } from '../store/policy-store.js';
import type { Policy, PolicyRule, Refusal } from './policy.js';

/** A filtered answer, reused while the policy's stamp holds and no hidden file has become visible. */
interface Filtered<T> {
  stamp: string;
  until: number;
  value: T;
}

const REFUSAL_CODES = {
  deny: 'policy_denied',
  'allow-list': 'policy_not_allowed',
  cooldown: 'policy_held_back',
  'unknown-upload-time': 'policy_held_back',
  advisory: 'blocked_by_advisory',
} as const satisfies Record<PolicyRule, ErrorCode>;

export function refusalError(refusal: Refusal): LarderError {
  return new LarderError(REFUSAL_CODES[refusal.rule], refusal.message);
}

export interface HeldRelease {
  version: string;
  refusal: Refusal;
}

/** What the policy holds back of a project: all of it (`project`), or these releases. */
export interface PolicyHolds {
  project: Refusal | null;
  /** In the upstream's order. */
  releases: HeldRelease[];
}

/** The policy's decision on one release, for `larder policy explain`. */
export type ReleaseExplanation =
  | { project: Refusal }
  | { project: null; found: boolean; version: string; hold: Refusal | null; exemption: ExemptionRecord | undefined };

/** The hold that a file of a held-back release is marked yanked with; an upstream yank's reason follows it. */
function heldReason(refusal: Refusal, file: FileEntry): string {
  if (!file.yanked) return refusal.message;
  return `${refusal.message} (also yanked upstream${file.yankedReason ? `: ${file.yankedReason}` : ''})`;
}

export class PolicySource extends SourceDecorator {
  private readonly pages = new WeakMap<ProjectPage, Filtered<ProjectPage>>();
  private readonly pageFiles = new PageFiles();
  private readonly documents = new WeakMap<ProjectReleases, Filtered<ProjectReleases>>();

  constructor(
    inner: PackageSource,
    private readonly policy: Policy,
    private readonly audit: PolicyAudit,
  ) {
    super(inner);
  }

  override async listVersion(): Promise<string> {
    return `${await this.inner.listVersion()} policy:${this.policy.stamp()}`;
  }

  override async *listProjects(): AsyncIterable<ProjectListBatch> {
    if (!this.policy.filtersNames) return yield* this.inner.listProjects();
    for await (const batch of this.inner.listProjects()) {
      yield batch.filter((e) => this.policy.projectRefusal(e.normalized ?? normalizeName(e.name)) === null);
    }
  }

  /** Refuses a project the lists refuse; then brings the exemptions the decisions see up to date. */
  private async checkProject(name: ProjectName): Promise<void> {
    const refusal = this.policy.projectRefusal(name);
    if (refusal) {
      this.audit.decided(refusal.rule, 'refused', name, null);
      throw refusalError(refusal);
    }
    await this.policy.refresh();
  }

  override async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    if (!this.policy.active) return this.inner.getProject(name);
    await this.checkProject(name);
    const answer = await this.inner.getProject(name);
    const page = answer.value;
    if (!page) return answer;
    const filtered = await this.filtered(this.pages, page, async () => {
      const times = await this.uploadTimes(name, page.files);
      const { files, until } = this.mark(name, page.files, times);
      const withFiles = new Set(page.files.map((f) => f.version));
      const versions = page.versions.filter((v) => withFiles.has(v) || !this.policy.releaseRefusal(name, v));
      return { value: { ...page, files, versions }, until };
    });
    return sourced(filtered, answer.provenance);
  }

  override async getReleases(name: ProjectName, forVersion?: string): Promise<Sourced<ProjectReleases | null>> {
    if (!this.policy.active) return this.inner.getReleases(name, forVersion);
    await this.checkProject(name);
    const answer = await this.inner.getReleases(name, forVersion);
    const doc = answer.value;
    if (!doc) return answer;
    const filtered = await this.filtered(this.documents, doc, async () => {
      let until = Infinity;
      const releases = doc.releases.flatMap((release) => {
        if (!release.files.length) return this.policy.releaseRefusal(name, release.version) ? [] : [release];
        const kept = this.keep(name, release.files, new Map());
        until = Math.min(until, kept.until);
        return kept.kept.length ? [{ ...release, files: kept.kept }] : [];
      });
      return { value: { ...doc, releases }, until };
    });
    return sourced(filtered, answer.provenance);
  }

  override async openFile(name: ProjectName, filename: string, variant: FileVariant): Promise<Sourced<FileBody | null>> {
    if (!this.policy.active) return this.inner.openFile(name, filename, variant);
    await this.checkProject(name);
    const { value: page } = await this.inner.getProject(name);
    const file = page ? this.pageFiles.find(page, filename) : undefined;
    const version = file ? file.version : versionFromFilename(filename);
    const refusal = file
      ? this.policy.fileRefusal(name, version, filename, (await this.uploadTimes(name, [file])).get(filename) ?? null)
      : this.policy.releaseRefusal(name, version);
    if (refusal) {
      this.audit.decided(refusal.rule, 'refused', name, version, filename);
      throw refusalError(refusal);
    }
    return this.inner.openFile(name, filename, variant);
  }

  private async filtered<T extends object>(memo: WeakMap<T, Filtered<T>>, input: T, filter: () => Promise<{ value: T; until: number }>): Promise<T> {
    const stamp = this.policy.stamp();
    const known = memo.get(input);
    if (known && known.stamp === stamp && this.policy.now() < known.until) return known.value;
    const { value, until } = await filter();
    memo.set(input, { stamp, until, value });
    return value;
  }

  /** The files the policy lets through, and when the first held-back one becomes available. */
  private keep<F extends FileEntry>(name: ProjectName, files: readonly F[], times: ReadonlyMap<string, string | null>): { kept: F[]; until: number } {
    const { files: marked, until } = this.mark(name, files, times);
    return { kept: marked.filter((f, i) => f === files[i]), until };
  }

  /** Every file, those the policy holds back marked yanked with the reason; and when the first of them becomes available. */
  private mark<F extends FileEntry>(name: ProjectName, files: readonly F[], times: ReadonlyMap<string, string | null>): { files: F[]; until: number } {
    let until = Infinity;
    const marked = files.map((f) => {
      const uploadTime = f.uploadTime ?? times.get(f.filename) ?? null;
      if (uploadTime === null && this.policy.needsUploadTimes) this.audit.unknownUploadTime(name, f.filename);
      const refusal = this.policy.fileRefusal(name, f.version, f.filename, uploadTime);
      if (!refusal) return f;
      if (refusal.visibleAt !== undefined) until = Math.min(until, refusal.visibleAt);
      this.audit.decided(refusal.rule, 'hidden', name, f.version, f.filename);
      return { ...f, yanked: true, yankedReason: heldReason(refusal, f) };
    });
    return { files: marked, until };
  }

  /** What the policy holds back of the project, and why; nothing is counted or logged (it is not a request for it). */
  async holds(name: ProjectName): Promise<PolicyHolds> {
    const project = this.policy.projectRefusal(name);
    if (project || !this.policy.active) return { project, releases: [] };
    await this.policy.refresh();
    const { value: doc } = await this.inner.getReleases(name);
    const releases: HeldRelease[] = [];
    for (const release of doc?.releases ?? []) {
      const refusal = this.policy.releaseHold(name, release.version, release.files);
      if (refusal) releases.push({ version: release.version, refusal });
    }
    return { project: null, releases };
  }

  /** The policy's decision on one release (`found` false when the upstream has no such release). */
  async explain(name: ProjectName, version: string): Promise<ReleaseExplanation> {
    const project = this.policy.projectRefusal(name);
    if (project) return { project };
    await this.policy.refresh();
    const { value: doc } = await this.inner.getReleases(name, version);
    const release = findRelease(doc?.releases ?? [], version);
    const exact = release?.version ?? version;
    const hold = this.policy.releaseHold(name, exact, release?.files ?? []);
    return { project: null, found: release !== null, version: exact, hold, exemption: await this.policy.exemption(name, exact) };
  }

  /**
   * Upload times the page lacks (an HTML page has none), from the JSON API document; only asked for while
   * the cooldown is on.
   */
  private async uploadTimes(name: ProjectName, files: readonly FileEntry[]): Promise<Map<string, string | null>> {
    const times = new Map<string, string | null>();
    if (!this.policy.needsUploadTimes || files.every((f) => f.uploadTime !== null)) {
      for (const f of files) times.set(f.filename, f.uploadTime);
      return times;
    }
    const doc = await this.inner.getReleases(name).then(
      (answer) => answer.value,
      () => null,
    );
    for (const release of doc?.releases ?? []) for (const f of release.files) times.set(f.filename, f.uploadTime);
    for (const f of files) if (f.uploadTime !== null) times.set(f.filename, f.uploadTime);
    return times;
  }
}
