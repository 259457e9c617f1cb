/**
 * Owner and administrator actions on private projects, shared by the CLI and the HTTP admin API.
 * Maintainers may only upload (publish.ts); yanking, unyanking, removing and adding maintainers are for
 * the project's owners and administrators.
 */
import type { Identity } from '../auth/authenticator.js';
import { mayOwn } from '../auth/authenticator.js';
import { badRequest, forbidden, notFound } from '../base/errors.js';
import type { IndexStore } from '../store/index-store.js';
import type { PublisherStore } from '../store/publisher-store.js';
import { PROJECT_STATUS_NAMES, type FileRecord, type ProjectRecord, type ProjectStatusName } from '../store/records.js';
import { normalizeName } from '../model/names.js';
import { checkFilenameSegment, checkProjectName, checkVersionSegment } from '../model/client-names.js';

/** The identity the CLI acts as: an administrator on the machine that holds the data directory. */
export const CLI_IDENTITY: Identity = { user: 'cli', admin: true, tokenProjects: null, viaToken: false };

/** User names are at most 64 characters (`larder user add`); longer ones are never looked up. */
const MAX_USER_NAME = 64;
/** A status reason travels in HTML attributes and in the reason phrase of a refused upload: one short line. */
const MAX_STATUS_REASON = 500;

/** A checked PEP 792 status and reason (a 400 naming what is wrong otherwise). */
export function checkProjectStatus(status: string, reason: string | null): { status: ProjectStatusName; reason: string | null } {
  if (!(PROJECT_STATUS_NAMES as readonly string[]).includes(status)) {
    throw badRequest('invalid_status', `Unknown project status '${status.slice(0, 40)}': use one of ${PROJECT_STATUS_NAMES.join(', ')}.`);
  }
  const trimmed = reason?.trim() || null;
  if (trimmed !== null && (trimmed.length > MAX_STATUS_REASON || /[\u0000-\u001f\u007f]/.test(trimmed))) {
    throw badRequest('invalid_status', `A status reason is one line of at most ${MAX_STATUS_REASON} characters.`);
  }
  return { status: status as ProjectStatusName, reason: trimmed };
}

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

  /** Sets the project's PEP 792 status (docs/project-status.md); owners and administrators only. */
  async setStatus(name: string, status: string, reason: string | null, who: Identity): Promise<{ project: string; serial: number }> {
    checkProjectName(name);
    const checked = checkProjectStatus(status, reason);
    const record = await this.ownedProject(name, who, 'set the project status');
    const serial = await this.meta.setProjectStatus(record.name, checked.status, checked.reason, this.actor(who));
    if (serial === null) throw notFound(`No private project named ${name}.`);
    return { project: record.displayName, serial };
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
