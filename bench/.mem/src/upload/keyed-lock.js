/** Runs tasks one at a time per key, in the order they arrive; tasks of different keys run side by side. */
export class KeyedLock {
    /** The last task queued per key, settled or not; a key is dropped once its queue is empty. */
    tails = new Map();
    async run(key, task) {
        const previous = this.tails.get(key) ?? Promise.resolve();
        const result = previous.then(task);
        const tail = result.catch(() => undefined);
        this.tails.set(key, tail);
        try {
            return await result;
        }
        finally {
            if (this.tails.get(key) === tail)
                this.tails.delete(key);
        }
    }
}
