/**
 * The supply-chain policy's decisions for upstream projects: the deny and allow lists (project-wide or
 * by version) and the release cooldown with its break-glass exemptions. The lists can be replaced while
 * the server runs (SIGHUP); exemptions are read from the policy store, so the CLI's take effect at once:
 * `refresh` (awaited before deciding) reloads them whenever the store's generation moved.
 */
import type { Clock } from '../base/clock.js';
import type { PolicyConfig } from '../config/policy-settings.js';
import type { ExemptionRecord, PolicyStore } from '../store/policy-store.js';
import { coversProject, matchesRelease, namesProject, parseRequirementList, type Requirement } from '../model/requirements.js';
import { canonicalVersion } from '../model/versions.js';

export type PolicyRule = 'deny' | 'allow-list' | 'cooldown' | 'unknown-upload-time' | 'advisory';

export interface Refusal {
  rule: PolicyRule;
  /** One line, for the client. */
  message: string;
  /** When the file becomes visible (cooldown), ms since the epoch. */
  visibleAt?: number;
  /** The advisory that blocks it (rule `advisory`, advisory-source.ts). */
  advisory?: { id: string; url: string };
}

/** How each rule is named to people: on project pages and by `larder policy explain`. */
export const RULE_LABELS: Record<PolicyRule, string> = {
  deny: 'deny list (LARDER_DENY)',
  'allow-list': 'not on the allow list (LARDER_ALLOW)',
  cooldown: 'release cooldown (LARDER_MIN_RELEASE_AGE)',
  'unknown-upload-time': 'no known upload time (LARDER_MIN_RELEASE_AGE_UNKNOWN=deny)',
  advisory: 'security advisory (LARDER_BLOCK_MALWARE, LARDER_BLOCK_VULNERABLE)',
};

/** What the policy needs to know of one file of a release. */
export interface FileFacts {
  filename: string;
  /** ISO 8601, or null when unknown. */
  uploadTime: string | null;
}

export type PolicyRules = Pick<PolicyConfig, 'minReleaseAge' | 'minReleaseAgeUnknown' | 'deny' | 'allow'>;

interface ParsedRules {
  minReleaseAge: number | null;
  unknown: 'allow' | 'deny';
  deny: Requirement[];
  allow: Requirement[];
}

function parseRules(rules: PolicyRules): ParsedRules {
  return {
    minReleaseAge: rules.minReleaseAge,
    unknown: rules.minReleaseAgeUnknown,
    deny: parseRequirementList(rules.deny),
    allow: parseRequirementList(rules.allow),
  };
}

/** `3d`, `12h`, `90m`, `45s`: as the setting is written. */
function ageText(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}

const exemptionKey = (project: string, version: string) => `${project}\u0000${canonicalVersion(version)}`;

export class Policy {
  private rules: ParsedRules;
  /** Bumped by every `update`: part of the stamp of filtered pages. */
  private revision = 0;
  /** The exempted releases (`project\0canonical version`) as of a generation of the store. */
  private exempted: { generation: number; keys: Set<string> } | null = null;

  constructor(
    rules: PolicyRules,
    private readonly store: PolicyStore,
    private readonly clock: Clock,
  ) {
    this.rules = parseRules(rules);
  }

  /** Replaces the rules (SIGHUP); throws, keeping the old ones, when a list does not parse. */
  update(rules: PolicyRules): void {
    this.rules = parseRules(rules);
    this.revision++;
  }

  /** Whether any rule can hide anything; when none can, the policy source passes everything through. */
  get active(): boolean {
    return this.rules.minReleaseAge !== null || this.rules.deny.length > 0 || this.rules.allow.length > 0;
  }

  /** Whether whole projects may be hidden from the project list. */
  get filtersNames(): boolean {
    return this.rules.allow.length > 0 || this.rules.deny.some((r) => r.specifier === null);
  }

  /** Changes whenever a decision may change other than by the clock: the rules or the exemptions (as last refreshed). */
  stamp(): string {
    return `${this.revision}.${this.exempted?.generation ?? 'none'}`;
  }

  now(): number {
    return this.clock.now();
  }

  /** Why the whole project is refused (denied without a version, or not on the allow list); null when it is not. */
  projectRefusal(project: string): Refusal | null {
    const denied = this.rules.deny.find((r) => coversProject(r, project));
    if (denied) return { rule: 'deny', message: `${project} is refused by larder's deny list (${denied.text})` };
    if (this.rules.allow.length && !this.rules.allow.some((r) => namesProject(r, project))) {
      return { rule: 'allow-list', message: `${project} is not on larder's allow list (LARDER_ALLOW is set); ask the index's administrators to add it` };
    }
    return null;
  }

  /** Why one release is refused by the lists; null when it is not. */
  releaseRefusal(project: string, version: string | null): Refusal | null {
    const refusal = this.projectRefusal(project);
    if (refusal) return refusal;
    const label = `${project} ${version ?? '(unknown version)'}`;
    const denied = this.rules.deny.find((r) => matchesRelease(r, project, version));
    if (denied) return { rule: 'deny', message: `${label} is refused by larder's deny list (${denied.text})` };
    if (this.rules.allow.length && !this.rules.allow.some((r) => matchesRelease(r, project, version))) {
      return { rule: 'allow-list', message: `${label} is not on larder's allow list (LARDER_ALLOW is set)` };
    }
    return null;
  }

  /**
   * Why one upstream file is refused: the lists, then the cooldown (unless its release is exempted).
   * `uploadTime` is ISO 8601, or null when unknown.
   */
  fileRefusal(project: string, version: string | null, filename: string, uploadTime: string | null): Refusal | null {
    return this.releaseRefusal(project, version) ?? this.cooldownRefusal(project, version, filename, uploadTime);
  }

  /**
   * Why a release is held back: the lists, else — when the policy lets none of its files through — the
   * refusal that ends first, said of the release. Null when installers are offered it.
   */
  releaseHold(project: string, version: string, files: readonly FileFacts[]): Refusal | null {
    const listed = this.releaseRefusal(project, version);
    if (listed || files.length === 0) return listed;
    let first: Refusal | null = null;
    for (const file of files) {
      const refusal = this.cooldownRefusal(project, version, file.filename, file.uploadTime);
      if (!refusal) return null;
      if (!first || (refusal.visibleAt ?? Infinity) < (first.visibleAt ?? Infinity)) first = refusal;
    }
    if (first?.visibleAt === undefined) return this.unknownUploadTime(`${project} ${version}`);
    return this.cooldown(`${project} ${version}`, project, version, first.visibleAt - this.rules.minReleaseAge!, first.visibleAt);
  }

  /** The break-glass exemption of a release, if there is one. */
  exemption(project: string, version: string): Promise<ExemptionRecord | undefined> {
    return this.store.getExemption(project, version);
  }

  /** Brings the exemptions the decisions see up to the store's (a read only when its generation moved). */
  async refresh(): Promise<void> {
    if (this.rules.minReleaseAge === null) return;
    const generation = this.store.generation();
    if (this.exempted?.generation === generation) return;
    const keys = new Set((await this.store.exemptions()).map((e) => exemptionKey(e.project, e.version)));
    // A generation that moved while they were read is read again next time; an older read never replaces a newer one.
    if (!this.exempted || this.exempted.generation <= generation) this.exempted = { generation, keys };
  }

  private cooldownRefusal(project: string, version: string | null, filename: string, uploadTime: string | null): Refusal | null {
    const minAge = this.rules.minReleaseAge;
    if (minAge === null) return null;
    const uploaded = uploadTime === null ? NaN : Date.parse(uploadTime);
    if (Number.isNaN(uploaded)) {
      return this.rules.unknown === 'allow' || this.exempt(project, version) ? null : this.unknownUploadTime(filename);
    }
    if (uploaded + minAge <= this.clock.now() || this.exempt(project, version)) return null;
    return this.cooldown(filename, project, version, uploaded, uploaded + minAge);
  }

  private unknownUploadTime(subject: string): Refusal {
    return {
      rule: 'unknown-upload-time',
      message: `${subject} has no known upload time and larder holds such files back (LARDER_MIN_RELEASE_AGE_UNKNOWN=deny)`,
    };
  }

  private cooldown(subject: string, project: string, version: string | null, uploaded: number, visibleAt: number): Refusal {
    const age = ageText(this.rules.minReleaseAge!);
    return {
      rule: 'cooldown',
      message: `${subject} is held back by larder's release cooldown: uploaded ${new Date(uploaded).toISOString()}, less than ${age} ago (LARDER_MIN_RELEASE_AGE); it becomes available ${new Date(visibleAt).toISOString()}, or now with: larder policy allow ${project}==${version ?? '?'}`,
      visibleAt,
    };
  }

  /** Whether the cooldown applies at all and a file's upload time is needed. */
  get needsUploadTimes(): boolean {
    return this.rules.minReleaseAge !== null;
  }

  /** As of the last `refresh`. */
  private exempt(project: string, version: string | null): boolean {
    return version !== null && (this.exempted?.keys.has(exemptionKey(project, version)) ?? false);
  }
}
