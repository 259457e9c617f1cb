/** A real HTTP server whose only handler is `receiveUpload`, reporting each outcome to the test. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LarderError } from '../../src/base/errors.js';
import { receiveUpload } from '../../src/upload/receive.js';
import type { RawUpload, ReceiveOptions } from '../../src/upload/types.js';

export type Outcome = { ok: true; upload: RawUpload } | { ok: false; error: unknown };

export interface Receiver {
  url: string;
  port: number;
  /** The outcome of the next request the server handles. */
  next(): Promise<Outcome>;
  close(): Promise<void>;
}

export async function startReceiver(options: ReceiveOptions): Promise<Receiver> {
  const waiting: ((o: Outcome) => void)[] = [];
  const ready: Outcome[] = [];
  const report = (outcome: Outcome) => {
    const waiter = waiting.shift();
    if (waiter) waiter(outcome);
    else ready.push(outcome);
  };
  const server: Server = createServer((req, res) => {
    receiveUpload(req, options).then(
      (upload) => {
        report({ ok: true, upload });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      },
      (error: unknown) => {
        report({ ok: false, error });
        const status = error instanceof LarderError ? error.status : 500;
        const message = error instanceof Error ? error.message : String(error);
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(message);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/legacy/`,
    port,
    next: () => {
      const outcome = ready.shift();
      return outcome ? Promise.resolve(outcome) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
