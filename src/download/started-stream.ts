/** A stream of a download's bytes that exists only once its first bytes can be sent. */
import { Readable } from 'node:stream';

/**
 * Resolves with a stream of `chunks` once their first one has come, and rejects if they fail before that,
 * so that a caller that has sent nothing yet can still answer with an error status instead of an empty,
 * broken 200. Closing the stream ends the chunks.
 */
export async function startedStream(chunks: AsyncGenerator<Uint8Array>, highWaterMark: number): Promise<Readable> {
  let first: IteratorResult<Uint8Array>;
  try {
    first = await chunks.next();
  } catch (err) {
    await chunks.return(undefined).catch(() => {});
    throw err;
  }
  async function* all(): AsyncGenerator<Uint8Array> {
    if (first.done) return;
    yield first.value;
    yield* chunks;
  }
  const stream = Readable.from(all(), { objectMode: false, highWaterMark });
  stream.once('close', () => void chunks.return(undefined).catch(() => {}));
  return stream;
}
