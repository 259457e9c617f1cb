/** What the `cached` source tells the rest of the app (metrics, logs) about what it does. */
export interface CacheEvents {
  hashMismatch?(filename: string): void;
  bytesFetched?(bytes: number): void;
  /** Something was not kept because the data disk is full or below its reserve (`err` null: known beforehand). */
  diskFull?(what: 'file' | 'page', item: string, err: Error | null): void;
  /** A cache write failed for another reason; what it concerned is still served. */
  storeFailed?(what: string, err: Error): void;
}
