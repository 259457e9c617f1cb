/**
 * The description worker's own code (started by description-thread.ts): renders one Markdown description
 * at a time, answering `{ id, html }` or `{ id, error }`. It says `{ ready: true }` once its libraries are
 * loaded, so that loading them does not count against the first description's time limit.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { newMarkdownIt, renderMarkdown, sanitize } from './description.js';

export interface DescriptionJob {
  id: number;
  text: string;
}

export type DescriptionReply = { ready: true } | { id: number; html: string } | { id: number; error: string };

function serve(port: MessagePort): void {
  const markdown = newMarkdownIt();
  sanitize('');
  port.on('message', ({ id, text }: DescriptionJob) => {
    let reply: DescriptionReply;
    try {
      reply = { id, html: renderMarkdown(markdown, text) };
    } catch (err) {
      reply = { id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies DescriptionReply);
}

if (parentPort) serve(parentPort);
