/**
 * Steps 2 and 3 of `larder migrate`: the private records into the target index store in ONE transaction,
 * then the policy records. What the target already has with the same values is skipped (a re-run adds
 * nothing); what it has with other values is a conflict, reported and left as the target has it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { IndexImport, IndexStore } from '../store/index-store.js';
import type { PolicyStore } from '../store/policy-store.js';
import type { FileRecord, ProjectRecord, ReleaseRecord, TokenRecord, UserRecord } from '../store/records.js';

export interface RecordCounts {
  projects: number;
  releases: number;
  files: number;
  reservedNames: number;
  allowedNames: number;
  users: number;
  tokens: number;
  exemptions: number;
  collisions: number;
  /** Records the target already had with the same values. */
  alreadyThere: number;
  conflicts: number;
}

const zero = (): RecordCounts => ({
  projects: 0,
  releases: 0,
  files: 0,
  reservedNames: 0,
  allowedNames: 0,
  users: 0,
  tokens: 0,
  exemptions: 0,
  collisions: 0,
  alreadyThere: 0,
  conflicts: 0,
});

export const added = (c: RecordCounts) =>
  c.projects + c.releases + c.files + c.reservedNames + c.allowedNames + c.users + c.tokens + c.exemptions + c.collisions;

const sameList = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

export const sameProject = (a: ProjectRecord, b: ProjectRecord) =>
  a.displayName === b.displayName &&
  a.createdAt === b.createdAt &&
  sameList(a.owners, b.owners) &&
  sameList(a.maintainers, b.maintainers) &&
  (a.status ?? null) === (b.status ?? null) &&
  (a.statusReason ?? null) === (b.statusReason ?? null);
export const sameRelease = (a: ReleaseRecord, b: ReleaseRecord) =>
  // Key order is not compared: PostgreSQL kept metadata as jsonb, in its own key order, before schema version 4.
  a.yanked === b.yanked && a.yankedReason === b.yankedReason && a.createdAt === b.createdAt && isDeepStrictEqual(a.metadata, b.metadata);
export const sameFile = (a: FileRecord, b: FileRecord) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
export const sameUser = (a: UserRecord, b: UserRecord) => a.passwordHash === b.passwordHash && a.admin === b.admin && a.createdAt === b.createdAt;
export const sameToken = (a: TokenRecord, b: TokenRecord) =>
  a.id === b.id &&
  a.user === b.user &&
  a.description === b.description &&
  a.createdAt === b.createdAt &&
  (a.expiresAt ?? null) === (b.expiresAt ?? null) &&
  JSON.stringify(a.projects) === JSON.stringify(b.projects);

/**
 * Adds to `target` what `source` has and it lacks. A project's serial as clients see it never goes down:
 * the new project's `serialBase` is the source's visible serial, and the target numbers its own changes on top.
 */
function importInto(source: IndexStore, target: IndexImport, counts: RecordCounts, report: (line: string) => void): Promise<void> {
  const conflict = (line: string) => {
    counts.conflicts++;
    report(`conflict: ${line}`);
  };
  return source.readSnapshot(async (snapshot) => {
    for await (const project of snapshot.projects()) {
      const there = await target.getProject(project.name);
      if (!there) {
        target.addProject({ ...project, serialBase: project.serial + (project.serialBase ?? 0) });
        counts.projects++;
      } else if (sameProject(there, project)) counts.alreadyThere++;
      else conflict(`project ${project.name} exists in the target with other owners, maintainers or dates; kept the target's`);
    }
    for await (const release of snapshot.releases()) {
      const there = await target.getRelease(release.project, release.version);
      if (!there) {
        target.addRelease(release);
        counts.releases++;
      } else if (sameRelease(there, release)) counts.alreadyThere++;
      else conflict(`release ${release.project} ${release.version} differs in the target (yank, metadata or date); kept the target's`);
    }
    for await (const deleted of snapshot.deletedFilenames()) {
      if (await target.isFilenameDeleted(deleted.project, deleted.filename)) counts.alreadyThere++;
      else if (await target.getFile(deleted.project, deleted.filename))
        conflict(`${deleted.project}/${deleted.filename} was removed in the source but exists in the target`);
      else {
        target.reserveFilename(deleted);
        counts.reservedNames++;
      }
    }
    // In upload order, so that the target's changelog lists them as they came.
    const files = (await Array.fromAsync(snapshot.files())).sort((a, b) => (a.uploadTime < b.uploadTime ? -1 : a.uploadTime > b.uploadTime ? 1 : 0));
    for (const file of files) {
      const there = await target.getFile(file.project, file.filename);
      if (there) {
        if (sameFile(there, file)) counts.alreadyThere++;
        else conflict(`${file.project}/${file.filename} exists in the target with other bytes or details; kept the target's`);
      } else if (await target.isFilenameDeleted(file.project, file.filename)) {
        conflict(`${file.project}/${file.filename} was removed in the target and its name stays reserved`);
      } else {
        target.addFile(file);
        counts.files++;
      }
    }
    for await (const allowed of snapshot.allowedNames()) {
      if (await target.isNameAllowed(allowed.name)) counts.alreadyThere++;
      else {
        target.putAllowedName(allowed);
        counts.allowedNames++;
      }
    }
    for await (const user of snapshot.users()) {
      const there = await target.getUser(user.name);
      if (!there) {
        target.putUser(user);
        counts.users++;
      } else if (sameUser(there, user)) counts.alreadyThere++;
      else conflict(`user ${user.name} exists in the target with another password or role; kept the target's`);
    }
    for await (const token of snapshot.tokens()) {
      const there = await target.getTokenByHash(token.hash);
      if (!there) {
        target.putToken(token);
        counts.tokens++;
      } else if (sameToken(there, token)) counts.alreadyThere++;
      else conflict(`token ${token.id} exists in the target with another user or scope; kept the target's`);
    }
  });
}

/** The private records, in one transaction of the target. */
export async function migrateIndex(source: IndexStore, target: IndexStore, report: (line: string) => void): Promise<RecordCounts> {
  await target.catchUp();
  // A transaction may be retried by a shared database: count (and report) only the attempt that commits.
  let lines: string[] = [];
  let counts = zero();
  await target.importRecords(async (into) => {
    lines = [];
    counts = zero();
    await importInto(source, into, counts, (line) => lines.push(line));
  });
  lines.forEach(report);
  return counts;
}

/** Cooldown exemptions and name collisions, each written on its own (re-running writes nothing twice). */
export async function migratePolicy(source: PolicyStore, target: PolicyStore, counts: RecordCounts, report: (line: string) => void): Promise<void> {
  for (const exemption of await source.exemptions()) {
    const there = await target.getExemption(exemption.project, exemption.version);
    if (!there) {
      await target.putExemption(exemption);
      counts.exemptions++;
    } else if (there.reason === exemption.reason && there.by === exemption.by && there.at === exemption.at) counts.alreadyThere++;
    else {
      counts.conflicts++;
      report(`conflict: exemption ${exemption.project}==${exemption.version} exists in the target with another reason or author; kept the target's`);
    }
  }
  for (const collision of await source.collisions()) {
    if (await target.getCollision(collision.project, collision.upstream)) counts.alreadyThere++;
    else {
      await target.putCollision(collision);
      counts.collisions++;
    }
  }
}

export const emptyRecordCounts = zero;
