/**
 * `larder policy …`: break-glass exemptions from the release cooldown (allow, list, revoke), what the policy
 * decides about a release and why (explain), and the name collisions seen between private and upstream
 * projects. A running server sees the changes at once.
 */
import { systemClock } from '../base/clock.js';
import { LarderError } from '../base/errors.js';
import { checkProjectName } from '../model/client-names.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import { isValidVersion } from '../model/versions.js';
import type { Config } from '../config/schema.js';
import { Advisories } from '../policy/advisories.js';
import { RULE_LABELS, type Refusal } from '../policy/policy.js';
import type { Storage } from '../store/storage.js';
import type { ReleaseExplanation } from '../policy/policy-source.js';
import { UsageError } from './args.js';
import type { Command, Io } from './command.js';
import { openPolicyUpstream } from './policy-upstream.js';
import { table } from './table.js';

/** `NAME==VERSION` → normalized name and version. */
function release(spec: string): { project: ProjectName; version: string } {
  const match = /^\s*([^=\s]+)\s*==\s*(\S+)\s*$/.exec(spec);
  if (!match || !isValidVersion(match[2]!)) throw new UsageError(`'${spec}' is not NAME==VERSION (e.g. requests==2.32.3)`);
  checkProjectName(match[1]!);
  return { project: normalizeName(match[1]!), version: match[2]! };
}

/** The decision as `larder policy explain` prints it: the rule (and when it ends) on the first line, the reason on the second. */
function explanationLines(subject: string, explanation: ReleaseExplanation): string[] {
  const held = (refusal: Refusal, what: string) => [
    `${subject}: ${what} (${RULE_LABELS[refusal.rule]})${refusal.visibleAt === undefined ? '' : `; available from ${new Date(refusal.visibleAt).toISOString()}`}`,
    refusal.message,
  ];
  if (explanation.project) return held(explanation.project, 'the whole project is refused');
  if (explanation.hold) return held(explanation.hold, 'held back');
  const { exemption } = explanation;
  const exempted = exemption
    ? `; exempted from the release cooldown by ${exemption.by} at ${exemption.at}${exemption.reason ? ` (${exemption.reason})` : ''}`
    : '';
  return [`${subject}: offered to installers (no rule holds it back)${exempted}`];
}

/** The imported advisories' block of the project or release, as `explain` prints it; null when there is none. */
async function advisoryBlock(config: Config, storage: Storage, project: ProjectName, version: string | null) {
  const advisories = new Advisories(config, storage.advisories, storage.policy);
  if (!advisories.blocking) return null;
  await advisories.refresh();
  const block = advisories.projectBlock(project) ?? (version === null ? null : advisories.releaseBlock(project, version));
  if (!block) return null;
  return (subject: string) => [`${subject}: blocked (${RULE_LABELS.advisory} ${block.advisory.id})`, block.message];
}

/** Who ran the command, as the exemption records it. */
export const operator = (io: Io) => io.env.LARDER_OPERATOR || io.env.SUDO_USER || io.env.USER || io.env.LOGNAME || 'cli';

export const POLICY_COMMANDS: Record<string, Command> = {
  'policy allow': {
    usage: 'larder policy allow NAME==VERSION [--reason TEXT]',
    summary: 'exempt an upstream release from the release cooldown (LARDER_MIN_RELEASE_AGE), at once',
    options: { reason: { type: 'string', value: 'TEXT', help: 'why the exemption was granted, shown by policy list' } },
    minArgs: 1,
    maxArgs: 1,
    async run([spec], values, { policy }, io) {
      const { project, version } = release(spec!);
      const reason = typeof values.reason === 'string' && values.reason.trim() ? values.reason.trim() : null;
      await policy.putExemption({ project, version, reason, by: operator(io), at: new Date(systemClock.now()).toISOString() });
      io.out(`exempted ${project}==${version} from the release cooldown`);
    },
  },
  'policy revoke': {
    usage: 'larder policy revoke NAME==VERSION',
    summary: 'withdraw a cooldown exemption',
    minArgs: 1,
    maxArgs: 1,
    async run([spec], _values, { policy }, io) {
      const { project, version } = release(spec!);
      if (!(await policy.deleteExemption(project, version))) throw new UsageError(`no exemption for ${project}==${version}`);
      io.out(`revoked the exemption of ${project}==${version}`);
    },
  },
  'policy list': {
    usage: 'larder policy list',
    summary: 'list cooldown exemptions: release, who, when, why',
    minArgs: 0,
    maxArgs: 0,
    async run(_args, _values, { policy }, io) {
      const rows = (await policy.exemptions()).map((e) => [`${e.project}==${e.version}`, e.by, e.at, e.reason ?? '']);
      if (!rows.length) return io.out('no exemptions');
      for (const line of table([['RELEASE', 'BY', 'AT', 'REASON'], ...rows])) io.out(line);
    },
  },
  'policy explain': {
    usage: 'larder policy explain NAME==VERSION',
    summary: 'say whether the policy holds an upstream release back, by which rule, and until when',
    description:
      'Reads the release from the upstream (through the cache; offline, from the cache only) and applies the configured rules and exemptions, as the server does.',
    minArgs: 1,
    maxArgs: 1,
    async run([spec], _values, storage, io, config) {
      const { project, version } = release(spec!);
      if ((await storage.index.getProject(project)) && !config.mergeAllowList.map(normalizeName).includes(project)) {
        return io.out(`${project}: a private project; the policy applies to upstream projects only`);
      }
      const upstream = await openPolicyUpstream(config, storage, systemClock);
      try {
        const explanation = await upstream.source.explain(project, version);
        const subject = `${project} ${explanation.project ? '' : explanation.version}`.trim();
        if (!explanation.project && !explanation.found) {
          throw new LarderError('not_found', `the upstream has no release ${version} of ${project}`);
        }
        // The policy is applied first (its refusal is what a download is answered), then the advisories.
        const blocked = explanation.project || explanation.hold ? null : await advisoryBlock(config, storage, project, explanation.version);
        if (blocked) {
          for (const line of blocked(subject)) io.out(line);
          return;
        }
        for (const line of explanationLines(subject, explanation)) io.out(line);
      } finally {
        await upstream.close();
      }
    },
  },
  'policy collisions': {
    usage: 'larder policy collisions',
    summary: 'list upstream projects seen with the name of a private project',
    minArgs: 0,
    maxArgs: 0,
    async run(_args, _values, { policy }, io) {
      const rows = (await policy.collisions()).map((c) => [c.project, c.upstream, c.firstSeen, c.lastSeen]);
      if (!rows.length) return io.out('no name collisions seen');
      for (const line of table([['PROJECT', 'UPSTREAM', 'FIRST SEEN', 'LAST SEEN'], ...rows])) io.out(line);
    },
  },
};
