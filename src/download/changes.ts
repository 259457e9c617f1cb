/** One promise that settles at the next change; each change replaces it. What readers of a download wait on. */
export class Changes {
  private promise!: Promise<void>;
  private resolve!: () => void;

  constructor() {
    this.renew();
  }

  /** Settles at the next `notify`: take it before looking, so that no change is missed. */
  get next(): Promise<void> {
    return this.promise;
  }

  notify(): void {
    const resolve = this.resolve;
    this.renew();
    resolve();
  }

  private renew(): void {
    this.promise = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }
}
