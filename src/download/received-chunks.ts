/**
 * The bytes of a download held in memory, in arrival order, for the clients that read it from there: a
 * window from the oldest byte still needed to the newest received.
 */
interface Chunk {
  start: number;
  bytes: Uint8Array;
}

export class ReceivedChunks {
  private readonly chunks: Chunk[] = [];

  /** Appends `bytes`, which start at `start` (the end of what was appended before). */
  add(start: number, bytes: Uint8Array): void {
    this.chunks.push({ start, bytes });
  }

  /** Lets go of the chunks that end at or before `position`. */
  dropBefore(position: number): void {
    while (this.chunks.length && this.chunks[0]!.start + this.chunks[0]!.bytes.byteLength <= position) this.chunks.shift();
  }

  /** The bytes from `position` up to `end` that one chunk holds, or null when they are no longer (or not yet) here. */
  slice(position: number, end: number): Uint8Array | null {
    for (const chunk of this.chunks) {
      const chunkEnd = chunk.start + chunk.bytes.byteLength;
      if (position < chunk.start) return null;
      if (position < chunkEnd) return chunk.bytes.subarray(position - chunk.start, Math.min(chunkEnd, end) - chunk.start);
    }
    return null;
  }
}
