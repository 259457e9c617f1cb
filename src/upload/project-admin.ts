/**
 * Owner and administrator actions on private projects, shared by the CLI and the HTTP admin API.
 * Maintainers may only upload (publish.ts); yanking, unyanking, removing and adding maintainers are for
 * the project's owners and administrators.
 */
import type { Identity } from '../auth/authenticator.js';
import { mayOwn } from '../auth/authenticator.js';
import { forbidden, notFound } from '../base/errors.js';
import type { IndexStore } from '../store/index-store.js';
import type { PublisherStore } from '../store/publisher-store.js';
import type { FileRecord, ProjectRecord } from '../store/records.js';
import { normalizeName } from '../model/names.js';
import { checkFilenameSegment, checkProjectName, checkVersionSegment } from '../model/client-names.js';

/** The identity the CLI acts as: an administrator on the machine that holds the data directory. */
export const CLI_IDENTITY: Identity = { user: 'cli', admin: true, tokenProjects: null, viaToken: false };

/** User names are at most 64 characters (`larder user add`); longer ones are never looked up. */
const MAX_USER_NAME = 64;

export class ProjectAdmin {
  constructor(
    private readonly meta: IndexStore,
    /** The trusted publishers, dropped with their project so that a project created later under the name inherits none. */
    private readonly publishers: Pick<PublisherStore, 'publishers' | 'removePublisher'> | null = null,
  ) {}

  /** The record of a checked project name, when `who` owns it or is an administrator; `action` completes "may …" in the 403. */
  private async ownedProject(name: string, who: Identity, action: string): Promise<ProjectRecord> {
    const project = normalizeName(name);
    const record = await this.meta.getProject(project);
    if (!record) throw notFound(`No private project named ${name}.`);
    if (mayOwn(who, project, record)) return record;
    if (who.tokenProjects && !who.tokenProjects.includes(project)) {
      throw forbidden('not_allowed', `The given token isn't allowed to manage project '${record.displayName}'.`);
    }
    if (record.maintainers.includes(who.user)) {
      throw forbidden(
        'not_owner',
        `The user '${who.user}' maintains project '${record.displayName}' and may upload to it; only its owners (and administrators) may ${action}.`,
      );
    }
    throw forbidden('not_allowed', `The user '${who.user}' isn't allowed to manage project '${record.displayName}'.`);
  }

  private actor(who: Identity): string | null {
    return who === CLI_IDENTITY ? null : who.user;
  }

  async setYanked(name: string, version: string, yanked: boolean, reason: string | null, who: Identity): Promise<number> {
    checkProjectName(name);
    checkVersionSegment(version);
    const record = await this.ownedProject(name, who, yanked ? 'yank releases' : 'unyank releases');
    const serial = await this.meta.setYanked(record.name, version, yanked, reason, this.actor(who));
    if (serial === null) throw notFound(`Project ${record.displayName} has no release ${version}.`);
    return serial;
  }

  async remove(name: string, version: string | null, filename: string | null, who: Identity): Promise<FileRecord[]> {
    checkProjectName(name);
    if (version !== null) checkVersionSegment(version);
    if (filename !== null) checkFilenameSegment(filename);
    const what = filename !== null ? 'remove files' : version !== null ? 'remove releases' : 'remove the project';
    const record = await this.ownedProject(name, who, what);
    const removed = await this.meta.remove(record.name, version, filename, this.actor(who));
    if (removed && version === null && this.publishers) {
      for (const p of await this.publishers.publishers(record.name)) await this.publishers.removePublisher(record.name, p.id);
    }
    if (!removed) {
      throw notFound(
        filename ? `Project ${record.displayName} has no file ${filename} in release ${version}.` : `Project ${record.displayName} has no release ${version}.`,
      );
    }
    return removed;
  }

  async addMaintainer(name: string, user: string, who: Identity): Promise<void> {
    checkProjectName(name);
    const record = await this.ownedProject(name, who, 'add maintainers');
    if (user.length > MAX_USER_NAME || !(await this.meta.getUser(user))) throw notFound(`No user named ${user}.`);
    await this.meta.addMaintainer(record.name, user, this.actor(who));
  }

  /** Lets a new private project take a name that exists upstream (docs/uploads.md). Administrators only. */
  async allowName(name: string, who: Identity): Promise<string> {
    if (!who.admin) throw forbidden('not_admin', 'Only an administrator may allow a name that exists upstream.');
    checkProjectName(name);
    const project = normalizeName(name);
    await this.meta.allowName(project, this.actor(who));
    return project;
  }
}
