/**
 * A lookup the fast path started for a request it then could not answer itself (not found, an error, a
 * file still downloading): the Koa route takes it over instead of asking the source a second time.
 */
import type { IncomingMessage } from 'node:http';

export interface HandedLookup<T> {
  lookup: Promise<T>;
}

export class Handoff<T> {
  private readonly pending = new WeakMap<IncomingMessage, HandedLookup<T>>();

  give(req: IncomingMessage, handed: HandedLookup<T>): void {
    // The route may not take it (e.g. a refused request): its rejection must not go unhandled.
    handed.lookup.catch(() => {});
    this.pending.set(req, handed);
  }

  take(req: IncomingMessage): HandedLookup<T> | undefined {
    const handed = this.pending.get(req);
    if (handed) this.pending.delete(req);
    return handed;
  }
}
