/** What the web pages are built from (WebDeps) and what their route modules share (WebContext). */
import type { Context } from 'koa';
import type { HttpDeps } from '../http/deps.js';
import type { ProjectAdmin } from '../upload/project-admin.js';
import type { PublisherAdmin } from '../upload/publisher-admin.js';
import type { PackageSource } from '../sources/package-source.js';
import type { UpstreamDocumentStore } from '../store/upstream-document-store.js';
import type { Descriptions } from './descriptions.js';
import type { ProjectSearch } from './project-search.js';
import type { PolicyHoldsSource, ProjectViews } from './project-view.js';
import type { SessionSigner } from './session.js';
import type { Looker } from './viewer.js';

export interface WebDeps {
  http: HttpDeps;
  admin: ProjectAdmin;
  /** The projects' trusted publishers (`/manage/project/<name>/settings/publishing/`). */
  publishers: PublisherAdmin;
  documents: UpstreamDocumentStore;
  /** The upstream side of the index (its project list), when there is an upstream. */
  upstream: PackageSource | null;
  /** What the supply-chain policy holds back of upstream projects, when there is an upstream. */
  policy: PolicyHoldsSource | null;
  sessionKey: Buffer;
  /** The project pages' description HTML, rendered on the description worker and cached. */
  descriptions: Descriptions;
  /** Hashes the passwords set on the account and user pages (the server's PasswordHasher). */
  passwords: { hash(password: string): Promise<string> };
}

export interface WebContext {
  deps: WebDeps;
  signer: SessionSigner;
  search: ProjectSearch;
  views: ProjectViews;
  /** The viewer, or a redirect to the login form when reads need a login and there is none (then null). */
  look(ctx: Context): Promise<Looker | null>;
}
