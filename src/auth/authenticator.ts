/** Turns credentials into an identity, and decides what an identity may do to a project. */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { MetaStore } from '../store/meta-store.js';
import type { ProjectRecord } from '../store/records.js';
import type { Credentials } from './credentials.js';
import { verifyPassword } from './passwords.js';
import { hashToken } from './tokens.js';

export interface Identity {
  user: string;
  admin: boolean;
  /** Set when authenticated by a token limited to these projects. */
  tokenProjects: string[] | null;
  viaToken: boolean;
}

export class Authenticator {
  /** scrypt is slow on purpose; pip sends credentials with every request, so good checks are remembered a while. */
  private readonly verified = new LRUCache<string, true>({ max: 1000, ttl: 10 * 60_000 });

  constructor(private readonly store: MetaStore) {}

  private async passwordMatches(password: string, stored: string): Promise<boolean> {
    const key = createHash('sha256').update(stored).update('\0').update(password).digest('hex');
    if (this.verified.has(key)) return true;
    const ok = await verifyPassword(password, stored);
    if (ok) this.verified.set(key, true);
    return ok;
  }

  async authenticate(credentials: Credentials): Promise<Identity | null> {
    if (credentials.kind === 'token') {
      const record = this.store.getTokenByHash(hashToken(credentials.token));
      const user = record && this.store.getUser(record.user);
      if (!record || !user) return null;
      return { user: user.name, admin: user.admin, tokenProjects: record.projects, viaToken: true };
    }
    const user = this.store.getUser(credentials.user);
    if (!user || !(await this.passwordMatches(credentials.password, user.passwordHash))) return null;
    return { user: user.name, admin: user.admin, tokenProjects: null, viaToken: false };
  }
}

/** May `who` upload to (or manage) `project`? A project that does not exist yet may be created by anyone signed in. */
export function mayWrite(who: Identity, projectName: string, project: ProjectRecord | undefined): boolean {
  if (who.tokenProjects && !who.tokenProjects.includes(projectName)) return false;
  if (!project) return true;
  return who.admin || project.owners.includes(who.user) || project.maintainers.includes(who.user);
}

/** Owner-only actions (adding maintainers). */
export function mayOwn(who: Identity, projectName: string, project: ProjectRecord): boolean {
  if (who.tokenProjects && !who.tokenProjects.includes(projectName)) return false;
  return who.admin || project.owners.includes(who.user);
}
