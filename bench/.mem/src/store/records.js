/** The records larder keeps (private index, upstream cache). Plain data: what is written is what is read back. */
export {};
