/**
 * Name collisions: an upstream that lists a project with the name of a private project. Wraps one
 * upstream's chain and looks at the names it lists (when the project list is read) and at the pages it
 * serves (private projects on the merge allow-list); each collision is logged as a warning once, recorded
 * for `larder policy collisions` and counted by `larder_name_collisions`. The private project keeps winning:
 * the overlay never shows the upstream's files for it.
 */
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.js';
import type { ProjectListBatch, ProjectPage, Sourced } from '../model/documents.js';
import { normalizeName, type ProjectName } from '../model/names.js';
import type { PackageSource } from '../sources/package-source.js';
import { SourceDecorator } from '../sources/source-decorator.js';
import type { PolicyStore } from '../store/policy-store.js';

/** How often the last-seen time of a known collision is written. */
const LAST_SEEN_EVERY_MS = 3_600_000;

export interface PrivateNames {
  has(name: ProjectName): Promise<boolean>;
  listProjects(): AsyncIterable<ProjectListBatch>;
}

export class CollisionWatch extends SourceDecorator {
  constructor(
    inner: PackageSource,
    private readonly upstream: string,
    private readonly privateNames: PrivateNames,
    private readonly store: PolicyStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    super(inner);
  }

  override async *listProjects(): AsyncIterable<ProjectListBatch> {
    const own = new Set<string>();
    for await (const batch of this.privateNames.listProjects()) for (const e of batch) own.add(e.normalized ?? normalizeName(e.name));
    for await (const batch of this.inner.listProjects()) {
      if (own.size) {
        for (const e of batch) {
          const name = e.normalized ?? normalizeName(e.name);
          if (own.has(name)) this.seen(name, 'the project list');
        }
      }
      yield batch;
    }
  }

  override async getProject(name: ProjectName): Promise<Sourced<ProjectPage | null>> {
    const page = await this.inner.getProject(name);
    if (page.value && (await this.privateNames.has(name))) this.seen(name, 'a project page');
    return page;
  }

  /** Records the collision in the background (serving never waits for it). */
  private seen(project: string, where: string): void {
    this.record(project, where).catch((err: unknown) => {
      this.logger.warn({ err, project }, 'could not record a name collision');
    });
  }

  private async record(project: string, where: string): Promise<void> {
    const now = new Date(this.clock.now()).toISOString();
    const known = await this.store.getCollision(project, this.upstream);
    if (known && Date.parse(now) - Date.parse(known.lastSeen) < LAST_SEEN_EVERY_MS) return;
    if (!known) {
      this.logger.warn(
        { project, upstream: this.upstream },
        `upstream ${this.upstream} lists a project named like the private project ${project} (seen in ${where}); the private project keeps winning`,
      );
    }
    await this.store.putCollision({ project, upstream: this.upstream, firstSeen: known?.firstSeen ?? now, lastSeen: now });
  }
}
