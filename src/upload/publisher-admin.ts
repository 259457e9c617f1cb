/**
 * Managing a project's trusted publishers (`larder publisher …`, `/api/projects/NAME/publishers`, the
 * project's manage page): the project's owners and administrators add, list and remove them. A publisher
 * is an issuer URL and the claims an OIDC token must carry, with optionally a JWK Set pinned for the issuer.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../base/clock.js';
import type { Identity } from '../auth/authenticator.js';
import { mayOwn } from '../auth/authenticator.js';
import { asKeySet, issuerUrlProblem } from '../auth/oidc/issuer-documents.js';
import { badRequest, forbidden, notFound } from '../base/errors.js';
import { checkProjectName } from '../model/client-names.js';
import { normalizeName } from '../model/names.js';
import type { IndexStore } from '../store/index-store.js';
import type { PublisherRecord, PublisherStore } from '../store/publisher-store.js';
import type { ProjectRecord } from '../store/records.js';

const CLAIM_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_CLAIMS = 20;
const MAX_CLAIM_VALUE = 512;
const MAX_PINNED_KEYS = 50;

export interface NewPublisher {
  issuer: string;
  claims: Record<string, string>;
  jwks: unknown;
}

/** `KEY=VALUE` (the CLI's `--claim`) → [key, value]; the value may hold '='. */
export function parseClaim(text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw badRequest('invalid_publisher', `'${text.slice(0, 80)}' is not KEY=VALUE (e.g. repository=acme/widgets)`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** Why `p` cannot be a publisher, or null. */
function problemOf(p: NewPublisher): string | null {
  const issuer = issuerUrlProblem(p.issuer);
  if (issuer) return issuer;
  const entries = Object.entries(p.claims);
  if (entries.length === 0) return 'a publisher needs at least one claim (e.g. repository=acme/widgets)';
  if (entries.length > MAX_CLAIMS) return `a publisher takes at most ${MAX_CLAIMS} claims`;
  for (const [key, value] of entries) {
    if (!CLAIM_NAME.test(key)) return `'${key.slice(0, 80)}' is not a claim name (letters, digits, '_', '.', ':', '-')`;
    if (typeof value !== 'string' || value === '' || value.length > MAX_CLAIM_VALUE)
      return `the claim ${key} needs a value of 1 to ${MAX_CLAIM_VALUE} characters`;
  }
  if (p.jwks !== null && p.jwks !== undefined) {
    const keys = asKeySet(p.jwks);
    if (!keys || keys.keys.length === 0 || keys.keys.length > MAX_PINNED_KEYS) return `the JWK Set must be {"keys": [...]} with 1 to ${MAX_PINNED_KEYS} keys`;
    if (keys.keys.some((key) => typeof key.kty !== 'string' || 'd' in key)) return 'every key of the JWK Set needs a "kty", and none may be private (a "d")';
  }
  return null;
}

export class PublisherAdmin {
  constructor(
    private readonly meta: IndexStore,
    private readonly store: PublisherStore,
    private readonly clock: Clock,
  ) {}

  private async ownedProject(name: string, who: Identity): Promise<ProjectRecord> {
    checkProjectName(name);
    const record = await this.meta.getProject(normalizeName(name));
    if (!record) throw notFound(`No private project named ${name}.`);
    if (!mayOwn(who, record.name, record)) {
      throw forbidden('not_allowed', `Only the owners of project '${record.displayName}' (and administrators) may manage its trusted publishers.`);
    }
    return record;
  }

  async add(project: string, publisher: NewPublisher, who: Identity, actor: string | null): Promise<PublisherRecord> {
    const record = await this.ownedProject(project, who);
    const problem = problemOf(publisher);
    if (problem) throw badRequest('invalid_publisher', `Invalid publisher: ${problem}.`);
    const jwks = publisher.jwks === null || publisher.jwks === undefined ? null : asKeySet(publisher.jwks);
    const added: PublisherRecord = {
      id: randomBytes(6).toString('hex'),
      project: record.name,
      issuer: publisher.issuer,
      claims: { ...publisher.claims },
      jwks,
      createdBy: actor,
      createdAt: new Date(this.clock.now()).toISOString(),
    };
    await this.store.addPublisher(added);
    return added;
  }

  /** The publishers of `project` (its owners), or of every project (administrators). */
  async list(project: string | null, who: Identity): Promise<PublisherRecord[]> {
    if (project === null) {
      if (!who.admin) throw forbidden('not_allowed', 'Only administrators may list the publishers of every project.');
      return this.store.publishers();
    }
    return this.store.publishers((await this.ownedProject(project, who)).name);
  }

  async remove(project: string, id: string, who: Identity): Promise<void> {
    const record = await this.ownedProject(project, who);
    if (!(await this.store.removePublisher(record.name, id))) throw notFound(`Project ${record.displayName} has no trusted publisher ${id.slice(0, 40)}.`);
  }
}
