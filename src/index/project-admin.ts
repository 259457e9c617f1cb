/** Owner and administrator actions on private projects, shared by the CLI and the HTTP admin API. */
import type { Identity } from '../auth/authenticator.js';
import { mayOwn, mayWrite } from '../auth/authenticator.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import type { MetaStore } from '../store/meta-store.js';
import type { FileRecord } from '../store/records.js';
import { isValidProjectName, normalizeName } from './names.js';

/** The identity the CLI acts as: an administrator on the machine that holds the data directory. */
export const CLI_IDENTITY: Identity = { user: 'cli', admin: true, tokenProjects: null, viaToken: false };

export class ProjectAdmin {
  constructor(private readonly meta: MetaStore) {}

  private project(name: string, who: Identity, ownerOnly = false) {
    const project = normalizeName(name);
    const record = this.meta.getProject(project);
    if (!record) throw notFound(`No private project named ${name}.`);
    const allowed = ownerOnly ? mayOwn(who, project, record) : mayWrite(who, project, record);
    if (!allowed) throw forbidden('not_allowed', `The user '${who.user}' isn't allowed to manage project '${record.displayName}'.`);
    return record;
  }

  private actor(who: Identity): string | null {
    return who === CLI_IDENTITY ? null : who.user;
  }

  setYanked(name: string, version: string, yanked: boolean, reason: string | null, who: Identity): number {
    const record = this.project(name, who);
    const serial = this.meta.setYanked(record.name, version, yanked, reason, this.actor(who));
    if (serial === null) throw notFound(`Project ${record.displayName} has no release ${version}.`);
    return serial;
  }

  remove(name: string, version: string | null, filename: string | null, who: Identity): FileRecord[] {
    const record = this.project(name, who, version === null);
    const removed = this.meta.remove(record.name, version, filename, this.actor(who));
    if (!removed) {
      throw notFound(filename ? `Project ${record.displayName} has no file ${filename} in release ${version}.` : `Project ${record.displayName} has no release ${version}.`);
    }
    return removed;
  }

  addMaintainer(name: string, user: string, who: Identity): void {
    const record = this.project(name, who, true);
    if (!this.meta.getUser(user)) throw notFound(`No user named ${user}.`);
    this.meta.addMaintainer(record.name, user, this.actor(who));
  }

  /** Lets a new private project take a name that exists upstream (decision 8). Administrators only. */
  allowName(name: string, who: Identity): string {
    if (!who.admin) throw forbidden('not_admin', 'Only an administrator may allow a name that exists upstream.');
    if (!isValidProjectName(name)) throw badRequest('invalid_name', `'${name}' is not a valid project name.`);
    const project = normalizeName(name);
    this.meta.allowName(project, this.actor(who));
    return project;
  }
}
