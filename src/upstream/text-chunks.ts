/** Text from an upstream body that arrives in pieces, handed on in bounded steps. */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** The most text one step handles; larger pieces are cut. */
export const MAX_STEP_CHARS = 64 * 1024;

/** Lets other work (requests, timers, I/O) run before going on. */
export function yieldToLoop(): Promise<void> {
  return nextTurn();
}

/** UTF-8 text from byte or string pieces; a character split across pieces is kept whole. */
export async function* decodeChunks(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    if (typeof chunk === 'string') {
      const rest = decoder.decode();
      yield rest + chunk;
    } else {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    }
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/**
 * decodeChunks in pieces of at most MAX_STEP_CHARS, with a turn of the event loop before each, so that a
 * parser fed from it never works on more than one step's worth of text at once.
 */
export async function* pacedText(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  for await (const text of decodeChunks(cut(chunks))) {
    for (let at = 0; at < text.length; at += MAX_STEP_CHARS) {
      await yieldToLoop();
      yield text.length <= MAX_STEP_CHARS ? text : text.slice(at, at + MAX_STEP_CHARS);
    }
  }
}

async function* cut(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<string | Uint8Array> {
  for await (const chunk of chunks) {
    if (chunk.length <= MAX_STEP_CHARS) yield chunk;
    else
      for (let at = 0; at < chunk.length; at += MAX_STEP_CHARS)
        yield typeof chunk === 'string' ? chunk.slice(at, at + MAX_STEP_CHARS) : chunk.subarray(at, at + MAX_STEP_CHARS);
  }
}
