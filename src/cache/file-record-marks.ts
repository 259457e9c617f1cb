/**
 * A mark per project that changes whenever this node records one of the project's cached files, so that
 * what is derived from the cached files of a project (the sizes and digests of a JSON API document built
 * from its page) is reused until one is added. Bounded: a project the marks have forgotten reads as the
 * highest mark forgotten, which may make a caller derive again for nothing but never hides a record.
 */
import { LRUCache } from 'lru-cache';

/** Projects whose mark is kept; more recorded ones push out the least recently used. */
const MAX_PROJECTS = 10_000;

export class FileRecordMarks {
  private tick = 0;
  private forgotten = 0;
  private readonly marks: LRUCache<string, number>;

  constructor(maxProjects = MAX_PROJECTS) {
    this.marks = new LRUCache<string, number>({
      max: maxProjects,
      dispose: (mark, _project, reason) => {
        if (reason === 'evict') this.forgotten = Math.max(this.forgotten, mark);
      },
    });
  }

  recorded(project: string): void {
    this.marks.set(project, ++this.tick);
  }

  /** Equal to an earlier answer for the same project only if no file of it was recorded in between. */
  mark(project: string): number {
    return this.marks.get(project) ?? this.forgotten;
  }
}
