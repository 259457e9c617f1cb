/**
 * The advisories' decisions for upstream projects: which releases a malware (`MAL-`) advisory or a
 * vulnerability of at least LARDER_BLOCK_VULNERABLE's severity blocks, and which projects a malware
 * advisory covering every version blocks whole. A release exempted with `larder policy allow` is not
 * blocked (nor is its project blocked whole). The advisories and exemptions are read from their stores;
 * `refresh` (awaited before deciding) reloads them whenever a store's generation moved, so an import or
 * an exemption made by the CLI applies at the server's next request.
 */
import type { AdvisoryRules } from '../config/policy-settings.js';
import { canonicalVersion } from '../model/versions.js';
import type { AdvisoryEntry, AdvisoryStore, SeverityBand } from '../store/advisory-store.js';
import type { PolicyStore } from '../store/policy-store.js';
import { AdvisoryIndex, isMalware } from './advisory-index.js';
import { atLeast } from './cvss.js';

export type BlockReason = 'malware' | 'vulnerable';

export const advisoryUrl = (id: string) => `https://osv.dev/vulnerability/${encodeURIComponent(id)}`;

export interface AdvisoryBlock {
  reason: BlockReason;
  advisory: AdvisoryEntry;
  /** One line, for the client. */
  message: string;
}

/** One advisory naming a release, and what larder does about it. */
export interface AdvisoryFinding {
  advisory: AdvisoryEntry;
  /** Why it blocks the release when not exempted; null when it is below the threshold (or blocking is off). */
  reason: BlockReason | null;
  exempted: boolean;
}

const exemptionKey = (project: string, version: string) => `${project}\u0000${canonicalVersion(version)}`;

/** Malware first, then by severity, worst first. */
const RANK: Record<SeverityBand, number> = { critical: 0, high: 1, moderate: 2, low: 3 };
const rank = (f: AdvisoryFinding) => (f.reason === 'malware' ? -1 : f.advisory.severity ? RANK[f.advisory.severity] : 4);

export class Advisories {
  private index: { generation: number; value: AdvisoryIndex } | null = null;
  private loading: { generation: number; done: Promise<void> } | null = null;
  private exempted: { generation: number; releases: Set<string>; projects: Set<string> } | null = null;

  constructor(
    private readonly rules: AdvisoryRules,
    private readonly store: AdvisoryStore,
    private readonly exemptions: PolicyStore,
  ) {}

  /** Whether any rule can block anything. */
  get blocking(): boolean {
    return this.rules.blockMalware || this.rules.blockVulnerable !== null;
  }

  /** Changes whenever a decision may change: the advisories or the exemptions (as last refreshed). */
  stamp(): string {
    return `${this.index?.generation ?? 'none'}.${this.exempted?.generation ?? 'none'}`;
  }

  /** Brings the advisories and exemptions the decisions see up to their stores' (reads only when a generation moved). */
  async refresh(): Promise<void> {
    const generation = this.store.generation();
    if (this.index?.generation !== generation) {
      // Requests arriving while the set is read share the one read.
      if (this.loading?.generation !== generation) {
        const done = this.load(generation);
        this.loading = { generation, done };
        // A failed read (the database down) is tried again by the next request.
        done.catch(() => {
          if (this.loading?.done === done) this.loading = null;
        });
      }
      await this.loading!.done;
    }
    const exemptionGeneration = this.exemptions.generation();
    if (this.exempted?.generation !== exemptionGeneration) {
      const records = await this.exemptions.exemptions();
      const releases = new Set(records.map((e) => exemptionKey(e.project, e.version)));
      const projects = new Set(records.map((e) => e.project));
      if (!this.exempted || this.exempted.generation <= exemptionGeneration) this.exempted = { generation: exemptionGeneration, releases, projects };
    }
  }

  private async load(generation: number): Promise<void> {
    const value = new AdvisoryIndex(await this.store.entries());
    // A generation that moved while they were read is read again next time; an older read never replaces a newer one.
    if (!this.index || this.index.generation <= generation) this.index = { generation, value };
  }

  /** Whether the project has any advisory (as of the last refresh). */
  names(project: string): boolean {
    return this.index?.value.has(project) ?? false;
  }

  /** Every advisory naming the release, worst first, with what larder does about each. */
  findings(project: string, version: string): AdvisoryFinding[] {
    const exempted = this.exempted?.releases.has(exemptionKey(project, version)) ?? false;
    const found = (this.index?.value.affecting(project, version) ?? []).map((advisory) => ({ advisory, reason: this.reasonOf(advisory), exempted }));
    return found.sort((a, b) => rank(a) - rank(b));
  }

  private reasonOf(advisory: AdvisoryEntry): BlockReason | null {
    if (isMalware(advisory.id)) return this.rules.blockMalware ? 'malware' : null;
    const threshold = this.rules.blockVulnerable;
    return threshold !== null && advisory.severity !== null && atLeast(advisory.severity, threshold) ? 'vulnerable' : null;
  }

  /** Why the release is blocked; null when it is not. */
  releaseBlock(project: string, version: string): AdvisoryBlock | null {
    const finding = this.findings(project, version).find((f) => f.reason !== null && !f.exempted);
    if (!finding?.reason) return null;
    const { advisory, reason } = finding;
    const label = `${project} ${version}`;
    if (reason === 'malware') {
      return { reason, advisory, message: `${label} is blocked by larder: malicious package advisory ${advisory.id} (${advisoryUrl(advisory.id)})` };
    }
    const fixed = this.index?.value.fixedAfter(advisory, version);
    return {
      reason,
      advisory,
      message: `${label} is blocked by larder: vulnerability ${advisory.id}, severity ${advisory.severity} (LARDER_BLOCK_VULNERABLE=${this.rules.blockVulnerable})${fixed ? `, fixed in ${fixed}` : ''} (${advisoryUrl(advisory.id)})`,
    };
  }

  /** Why the whole project is blocked (a malware advisory covering every version, and no release exempted); null when it is not. */
  projectBlock(project: string): AdvisoryBlock | null {
    if (!this.rules.blockMalware || this.exempted?.projects.has(project)) return null;
    const advisory = this.index?.value.coveringEveryVersion(project).find((a) => isMalware(a.id));
    if (!advisory) return null;
    return {
      reason: 'malware',
      advisory,
      message: `${project} is blocked by larder: malicious package advisory ${advisory.id} covers every version (${advisoryUrl(advisory.id)})`,
    };
  }
}
