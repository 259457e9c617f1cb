/**
 * The upload side's question to the upstream (the new-name rule of docs/uploads.md): does it have a project of
 * this name, and which serial has larder seen for it? Asked through the cached source; offline, only
 * the cache is consulted.
 */
import { LarderError } from '../base/errors.js';
import type { ProjectPage, Sourced } from '../model/documents.js';
import type { ProjectName } from '../model/names.js';

export interface CachedPages {
  getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>>;
  /** The cached page, without asking the upstream; null when none is cached or the upstream said 404. */
  cachedPage(name: ProjectName): ProjectPage | null;
}

/** Fills the publisher's `UpstreamNames` (upload/publish.ts). */
export class UpstreamNameCheck {
  constructor(
    private readonly pages: CachedPages,
    private readonly offline: boolean,
  ) {}

  /** Offline: as far as the cache knows. */
  async exists(name: ProjectName): Promise<boolean> {
    if (this.offline) return Boolean(this.pages.cachedPage(name));
    try {
      return (await this.pages.getProject(name)).value !== null;
    } catch (err) {
      throw new LarderError(
        'upstream_check_failed',
        `larder could not ask the upstream index whether '${name}' exists (${(err as Error).message}); try again later, or have an administrator allow the name.`,
      );
    }
  }

  knownSerial(name: ProjectName): number {
    return this.pages.cachedPage(name)?.serial ?? 0;
  }
}
