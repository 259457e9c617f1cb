/**
 * One promise that settles at the next change; each change replaces it. What readers of a download wait on.
 * A change nobody waits for costs nothing: the promise is replaced only once someone has taken it.
 */
export class Changes {
  private promise!: Promise<void>;
  private resolve!: () => void;
  private taken = false;

  constructor() {
    this.renew();
  }

  /** Settles at the next `notify`: take it before looking, so that no change is missed. */
  get next(): Promise<void> {
    this.taken = true;
    return this.promise;
  }

  notify(): void {
    if (!this.taken) return;
    const resolve = this.resolve;
    this.renew();
    resolve();
  }

  private renew(): void {
    this.taken = false;
    this.promise = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }
}
