export class Handoff {
    pending = new WeakMap();
    give(req, handed) {
        // The route may not take it (e.g. a refused request): its rejection must not go unhandled.
        handed.lookup.catch(() => { });
        this.pending.set(req, handed);
    }
    take(req) {
        const handed = this.pending.get(req);
        if (handed)
            this.pending.delete(req);
        return handed;
    }
}
